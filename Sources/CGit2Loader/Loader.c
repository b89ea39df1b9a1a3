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

void *concord_libgit2_symbol(const char *name)
{
    pthread_once(&opened, open_library);
    void *found = library ? dlsym(library, name) : NULL;
    if (!found) {
        if (library)
            snprintf(failure, sizeof failure, "%s has no function %s", LIBRARY, name);
        fprintf(stderr, "concord: cannot load libgit2 (install the package that provides %s): %s\n", LIBRARY, failure);
        _exit(127);
    }
    return found;
}

/*
 * The system's certificate authorities, parsed when the first TLS connection is set up instead of
 * when libgit2 starts. Debian's libgit2 1.5 is built with mbedTLS, whose start (inside
 * git_libgit2_init) parses the whole system bundle, for every command that calls libgit2, networked
 * or not: 139 certificates, 54 M instructions, half of a one-file save. No libgit2 option defers it.
 *
 * The executable exports the two mbedTLS functions below (Package.swift, ConcordTool's linker
 * settings), so libgit2's calls to them come here first (the executable is first in the dynamic
 * linker's search). While libgit2 starts (concord_libgit2_init), the file it asks to parse is only
 * noted, with the list it made for it; the first TLS connection parses it into that list
 * (mbedtls_ssl_setup, called for each new connection). A list libgit2 is given later
 * (CertificateAuthorities) replaces the noted one. A TLS connection is never set up before its
 * list is complete, so nothing is trusted that mbedTLS would not trust; what goes wrong while
 * parsing leaves the list short, and a server's certificate then fails to verify, as with
 * libgit2's own start. Without the export (a test process, an app), libgit2 calls mbedTLS
 * directly and parses the bundle as it starts.
 */
static pthread_mutex_t authorities = PTHREAD_MUTEX_INITIALIZER;
static int starting;
static void *noted_list;
static char *noted_file;

static void *mbedtls_function(const char *name)
{
    void *found = library ? dlsym(library, name) : NULL;
    if (!found) {
        fprintf(stderr, "concord: cannot load %s from libgit2's libraries: %s\n", name, library ? dlerror() : failure);
        _exit(127);
    }
    return found;
}

int concord_libgit2_init(void)
{
    int (*init)(void) = (int (*)(void))concord_libgit2_symbol("git_libgit2_init");
    pthread_mutex_lock(&authorities);
    starting = 1;
    pthread_mutex_unlock(&authorities);
    int result = init();
    pthread_mutex_lock(&authorities);
    starting = 0;
    pthread_mutex_unlock(&authorities);
    return result;
}

static int (*parse_file)(void *, const char *);
static int (*setup_connection)(void *, const void *);
static pthread_once_t mbedtls_found = PTHREAD_ONCE_INIT;

static void find_mbedtls(void)
{
    parse_file = (int (*)(void *, const char *))mbedtls_function("mbedtls_x509_crt_parse_file");
    setup_connection = (int (*)(void *, const void *))mbedtls_function("mbedtls_ssl_setup");
}

int mbedtls_x509_crt_parse_file(void *list, const char *file)
{
    pthread_once(&mbedtls_found, find_mbedtls);
    pthread_mutex_lock(&authorities);
    if (starting && !noted_file && (noted_file = strdup(file))) {
        noted_list = list;
        pthread_mutex_unlock(&authorities);
        return 0;
    }
    int result = parse_file(list, file);
    if (result >= 0 && noted_file) {
        /* A new list, which libgit2 puts in place of the noted one. */
        free(noted_file);
        noted_file = NULL;
        noted_list = NULL;
    }
    pthread_mutex_unlock(&authorities);
    return result;
}

int mbedtls_ssl_setup(void *connection, const void *configuration)
{
    pthread_once(&mbedtls_found, find_mbedtls);
    pthread_mutex_lock(&authorities);
    if (noted_file) {
        parse_file(noted_list, noted_file);
        free(noted_file);
        noted_file = NULL;
        noted_list = NULL;
    }
    pthread_mutex_unlock(&authorities);
    return setup_connection(connection, configuration);
}
