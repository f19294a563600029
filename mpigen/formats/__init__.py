"""The files users write (blueprint, overlay, mpigen.yaml): their models only, and the JSON Schema published from them."""
