"""The patterns the formats' strings must match, and what each means in words a user can act on."""

from mpigen.kube.image import HELP as IMAGE_HELP, IMAGE
from mpigen.kube.names import DNS1035_LABEL, DNS1123_LABEL, DNS1123_SUBDOMAIN, LABEL_VALUE, QUALIFIED_NAME

# An environment variable name that every shell and `mpirun -x` accepts.
ENV_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"
# resource.Quantity, non-negative (k8s.io/apimachinery/pkg/api/resource).
# The exponent is an integer, as ParseQuantity reads it (strconv.ParseInt): the API's
# published pattern also lets 1e1.5 through, which the parser then refuses.
QUANTITY = r"^(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE][+-]?[0-9]+))?$"
ABSOLUTE_PATH = r"^/[^\x00]*$"
# A duration as a PrometheusRule's `for` takes it: the Prometheus Operator's Duration pattern (its
# CRD, prometheus-operator v0.93.0 example/prometheus-operator-crd/monitoring.coreos.com_prometheusrules.yaml).
DURATION = r"^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$"
# An absolute http(s) URL, as a link in Alertmanager must be to lead anywhere.
ABSOLUTE_URL = r"^https?://[^\s/]+\S*$"

# What a pattern means, in words a user can act on (used in error messages).
PATTERN_HELP = {
    DNS1035_LABEL: "a DNS-1035 label: lowercase letters, digits and '-', starting with a letter "
                   "and ending with a letter or digit",
    DNS1123_LABEL: "a DNS-1123 label: lowercase letters, digits and '-', starting and ending "
                   "with a letter or digit",
    DNS1123_SUBDOMAIN: "a DNS-1123 subdomain: lowercase letters, digits, '-' and '.'",
    QUALIFIED_NAME: "a Kubernetes qualified name: an optional DNS prefix and '/', then letters, "
                    "digits, '-', '_' and '.', starting and ending with a letter or digit",
    LABEL_VALUE: "a label value: at most 63 letters, digits, '-', '_' and '.', starting and "
                 "ending with a letter or digit",
    ENV_NAME: "an environment variable name: letters, digits and '_', not starting with a digit",
    QUANTITY: "a Kubernetes quantity such as 16, 500m, 64Gi or 1.5",
    ABSOLUTE_PATH: "an absolute path starting with '/'",
    ABSOLUTE_URL: "an absolute URL starting with https:// or http://",
    DURATION: "a Prometheus duration such as 30m, 2h or 1h30m: units y, w, d, h, m, s, ms from the largest "
              "down, each at most once",
    IMAGE: IMAGE_HELP,
}
