/* Which declarations libtessera exports. The library is built with hidden
 * symbol visibility (CMAKE_CXX_VISIBILITY_PRESET), so only what carries
 * TESSERA_API (the C++ API, tessera.h) or TESSERA_CAPI_EXPORT (the C ABI,
 * capi.h) is visible to programs that link the shared library; the compiler's
 * internals stay private and cannot clash with a program's own symbols.
 * Linking the static library, the attribute changes nothing. Plain C. */
#ifndef TESSERA_EXPORT_H_
#define TESSERA_EXPORT_H_

#if defined(__GNUC__) || defined(__clang__)
#define TESSERA_API __attribute__((visibility("default")))
#else
#define TESSERA_API
#endif

/* The C ABI's functions: the same attribute, named apart so a C reader of
 * capi.h sees what is exported. */
#define TESSERA_CAPI_EXPORT TESSERA_API

#endif /* TESSERA_EXPORT_H_ */
