"""mpigen: compile MPI training job blueprints into plain Kubernetes manifests.

The pipeline, one module per stage:
  load (mpigen.load.documents)          files -> YAML documents with line/column marks
  validate (mpigen.validate.fields)  documents -> Blueprint models, or positioned diagnostics
  compile (mpigen.compile.blueprint)    Blueprint -> MPIJob (a typed copy of the operator's v1alpha2 API)
  render (mpigen.render.targets)      MPIJob -> Kubernetes objects, as the operator's controller builds them
  emit (mpigen.emit.yaml)          objects -> deterministic YAML bytes (stream or folder)
"""

__version__ = "0.1.0"
