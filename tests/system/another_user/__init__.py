"""mpigen run by another user (nobody, through setpriv, from the copy every user may run:
tests/support/any_user.py): another user's mpigen.yaml, another user's scratch beside the
output, the Argo CD plugin's sidecar user."""
