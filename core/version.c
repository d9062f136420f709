/* core/version.c: the library's version string. */
#include "config.h"
#include "tilepipe/tilepipe.h"

const char *tp_version(void) { return PACKAGE_VERSION; }
