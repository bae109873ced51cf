/* error.c: messages for ito's error codes. */
#include "ito/error.h"

const char *ito_strerror(int err)
{
    switch (err) {
    case ITO_OK:        return "success";
    case ITO_EINVAL:    return "invalid argument (NULL handle or pointer, out-of-range value, bad attribute)";
    case ITO_ENOMEM:    return "out of memory (malloc or mmap failed)";
    case ITO_ESTATE:    return "not allowed in the runtime's current state (not initialized, finalized, or twice)";
    case ITO_EDEADLK:   return "the call would wait for itself";
    case ITO_EJOINED:   return "thread already joined or detached";
    case ITO_EBUSY:     return "resource busy";
    case ITO_EAGAIN:    return "would have to wait";
    case ITO_ECLOSED:   return "closed";
    case ITO_EPERM:     return "operation not permitted for the caller";
    case ITO_ENOSYS:    return "not supported on this CPU, kernel or build";
    case ITO_ENOTULT:   return "must be called from an ito user-level thread";
    case ITO_ERANGE:    return "index or count out of range";
    case ITO_ETIMEDOUT: return "timed out";
    case ITO_EIO:       return "an operating-system call failed";
    default:            return "unknown ito error code";
    }
}
