# The run's SSH key (mpigen, target jobset), made in spec.ssh.keygenImage or the job's image: a Secret manifest
# for the next step to create, owned by the JobSet so that it goes with it. The key files
# are removed; the manifest stays in memory (the folder is a memory-backed emptyDir).
set -eu
command -v ssh-keygen >/dev/null || { echo "mpigen: ssh-keygen not found in the image (PATH=$PATH): it makes the run's key; see docs/ssh.md (spec.ssh.keygenImage)" >&2; exit 1; }
SECRET_NAME=$1 NAMESPACE=$2 JOBSET_NAME=$3
umask 077
ssh-keygen -q -t ecdsa -b 521 -N '' -C "$JOBSET_NAME" -f /keys/key
private=$(base64 -w 0 /keys/key)
public=$(base64 -w 0 /keys/key.pub)
rm -f /keys/key /keys/key.pub
umask 022  # read by the kubectl containers, which run as their own image's user
cat > /keys/secret.json <<MANIFEST
{"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/ssh-auth",
 "metadata": {"name": "$SECRET_NAME", "namespace": "$NAMESPACE",
  "labels": {"app.kubernetes.io/managed-by": "mpigen"},
  "ownerReferences": [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
                       "name": "$JOBSET_NAME", "uid": "$JOBSET_UID"}]},
 "data": {"ssh-privatekey": "$private", "ssh-publickey": "$public"}}
MANIFEST
