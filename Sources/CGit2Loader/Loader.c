/* libgit2 loaded on first use: `concord` is not linked with it, so that a command that never calls
 * it (listing, reading, `--version`) does not load it and the 19 libraries Debian's build needs
 * (OpenSSL, Kerberos, libssh2, PCRE2, mbedTLS). Forwarders.c holds one function per libgit2
 * function the Git target calls, each calling through concord_libgit2_symbol. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <git2/version.h>

#include "CGit2Loader.h"

#define LIBRARY "libgit2.so." LIBGIT2_SOVERSION

static void *library;
static char failure[512];
static pthread_once_t opened = PTHREAD_ONCE_INIT;

static void open_library(void)
{
    library = dlopen(LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *why = dlerror();
        snprintf(failure, sizeof failure, "%s", why ? why : LIBRARY " cannot be opened");
    }
}

void *concord_libgit2_optional_symbol(const char *name)
{
    pthread_once(&opened, open_library);
    return library ? dlsym(library, name) : NULL;
}

void *concord_libgit2_symbol(const char *name)
{
    void *found = concord_libgit2_optional_symbol(name);
    if (!found) {
        if (library)
            snprintf(failure, sizeof failure, "%s has no function %s", LIBRARY, name);
        fprintf(stderr, "concord: cannot load libgit2 (install the package that provides %s): %s\n", LIBRARY, failure);
        _exit(127);
    }
    return found;
}
