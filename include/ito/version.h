/**
 * @file
 * @brief The version of ito, in semantic versioning (https://semver.org).
 *
 * The macros are the version of the headers a program is compiled with; ito_version()
 * is the version of the library it runs with. The two differ when a program built with
 * one release runs with the shared libito of another. Before 1.0.0 a minor release may
 * change the API and the ABI (the shared library's soname is then libito.so.0.MINOR);
 * from 1.0.0 on only a major release may (soname libito.so.MAJOR). CHANGELOG.md lists
 * what changed.
 * The build checks that CMake's project() version equals these macros.
 */
#ifndef ITO_VERSION_H
#define ITO_VERSION_H

#define ITO_VERSION_MAJOR 0 /**< the major version of the headers */
#define ITO_VERSION_MINOR 1 /**< the minor version of the headers */
#define ITO_VERSION_PATCH 0 /**< the patch version of the headers */
/** "MAJOR.MINOR.PATCH" of the headers */
#define ITO_VERSION_STRING "0.1.0"
/** One number for \#if tests: MAJOR * 10000 + MINOR * 100 + PATCH (0.1.0 is 100). */
#define ITO_VERSION_NUMBER (ITO_VERSION_MAJOR * 10000 + ITO_VERSION_MINOR * 100 + ITO_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/**
 * @brief The library's version: stores its three numbers in *major, *minor and *patch
 * (each pointer may be NULL). Cannot fail.
 * @return the version as a static string "MAJOR.MINOR.PATCH" (never NULL, never freed).
 * @contexts any: before ito_init, a ULT, a ZWT, a foreign thread, a signal handler.
 */
const char *ito_version(int *major, int *minor, int *patch);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
