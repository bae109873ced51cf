/* version.c: ito_version(), the library's version as compiled (include/ito/version.h). */
#include "ito/version.h"

const char *ito_version(int *major, int *minor, int *patch)
{
    if (major) *major = ITO_VERSION_MAJOR;
    if (minor) *minor = ITO_VERSION_MINOR;
    if (patch) *patch = ITO_VERSION_PATCH;
    return ITO_VERSION_STRING;
}
