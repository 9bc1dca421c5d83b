${banner}
// The schema of every operator in namespace glassbox, in ops.yaml order.
#include "registry/library.h"

GLASSBOX_LIBRARY(glassbox, m) {
${definitions}
}
