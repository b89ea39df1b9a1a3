/*
 * What Concord changes in libgit2's TLS through mbedTLS: the system's certificate authorities are
 * parsed when the first TLS connection is set up instead of when libgit2 starts, and decoded faster
 * than mbedTLS decodes them; the key exchange's curves are offered fastest first (curve_order).
 *
 * Debian's libgit2 1.5 is built with mbedTLS, whose start (inside git_libgit2_init) parses the
 * whole system bundle, for every command that calls libgit2, networked or not: 139 certificates,
 * 54 M instructions, half of a one-file save. No libgit2 option defers it. The executable exports
 * the two mbedTLS functions below (Package.swift, ConcordTool's linker settings), so libgit2's
 * calls to them come here first (the executable is first in the dynamic linker's search). While
 * libgit2 starts (concord_libgit2_init), the file it asks to parse is only noted, with the list it
 * made for it; the first TLS connection parses it into that list (mbedtls_ssl_setup, called for
 * each new connection). A list libgit2 is given later (CertificateAuthorities) replaces the noted
 * one. A TLS connection is never set up before its list is complete, so nothing is trusted that
 * mbedTLS would not trust; what goes wrong while parsing leaves the list short, and a server's
 * certificate then fails to verify, as with libgit2's own start. Without the export (a test
 * process, an app), libgit2 calls mbedTLS directly and parses the bundle as it starts.
 *
 * The parse itself: mbedTLS decodes PEM's base64 in constant time (a table walk for each
 * character, made for secret keys), 50 M of the bundle's 52 M instructions. Authorities are
 * public: a file's certificates are decoded here (parse_authorities) and each is handed to
 * mbedtls_x509_crt_parse_der, which makes every check on the certificate itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <mbedtls/ecp.h>

#include "CGit2Loader.h"

/* Larger files are left to mbedTLS whole (the system's bundle is 220 KB). */
#define LARGEST_DECODED_FILE (16 << 20)
/* mbedTLS's MBEDTLS_ERR_X509_ALLOC_FAILED: no use going on. */
#define X509_ALLOC_FAILED (-0x2880)

static const char certificate_header[] = "-----BEGIN CERTIFICATE-----";
static const char certificate_footer[] = "-----END CERTIFICATE-----";

static pthread_mutex_t authorities = PTHREAD_MUTEX_INITIALIZER;
static int starting;
static void *noted_list;
static char *noted_file;

static int (*parse_file)(void *, const char *);
static int (*parse_der)(void *, const unsigned char *, size_t);
static int (*setup_connection)(void *, const void *);
static void (*set_curves)(void *, const mbedtls_ecp_group_id *);
/* The curves mbedTLS offers for the key exchange, fastest first (curve_order). */
static mbedtls_ecp_group_id curves[64];
static pthread_once_t mbedtls_found = PTHREAD_ONCE_INIT;
/* base64_value of each byte, filled by find_mbedtls. */
static signed char base64_values[256];

static int base64_value(unsigned char character);
static void curve_order(void);

static void find_mbedtls(void)
{
    for (int character = 0; character < 256; character++)
        base64_values[character] = (signed char)base64_value((unsigned char)character);
    parse_file = (int (*)(void *, const char *))concord_libgit2_symbol("mbedtls_x509_crt_parse_file");
    parse_der = (int (*)(void *, const unsigned char *, size_t))concord_libgit2_symbol("mbedtls_x509_crt_parse_der");
    setup_connection = (int (*)(void *, const void *))concord_libgit2_symbol("mbedtls_ssl_setup");
    /* Deprecated in mbedTLS 3 (mbedtls_ssl_conf_groups), and gone from a build without deprecated
     * functions: the curves are then offered in mbedTLS's order. */
    set_curves = (void (*)(void *, const mbedtls_ecp_group_id *))concord_libgit2_optional_symbol("mbedtls_ssl_conf_curves");
    curve_order();
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

/* mbedTLS 2.28 offers its curves largest first (secp521r1, brainpoolP512r1, ..., x25519 last but
 * one), and a server that follows the client's order then makes the key exchange on secp521r1.
 * Offered here: x25519 and secp256r1 first (what OpenSSL and curl offer first), then every other
 * curve in mbedTLS's order, so that no server key mbedTLS accepts is refused. */
static void curve_order(void)
{
    static const mbedtls_ecp_group_id first[] = {MBEDTLS_ECP_DP_CURVE25519, MBEDTLS_ECP_DP_SECP256R1};
    const mbedtls_ecp_group_id *supported = mbedtls_ecp_grp_id_list();
    size_t count = 0;
    for (size_t index = 0; index < sizeof first / sizeof first[0]; index++)
        for (const mbedtls_ecp_group_id *id = supported; *id != MBEDTLS_ECP_DP_NONE; id++)
            if (*id == first[index])
                curves[count++] = *id;
    for (const mbedtls_ecp_group_id *id = supported; *id != MBEDTLS_ECP_DP_NONE && count + 1 < sizeof curves / sizeof curves[0]; id++)
        if (*id != first[0] && *id != first[1])
            curves[count++] = *id;
    curves[count] = MBEDTLS_ECP_DP_NONE;
}

/* The whole regular file `path` (links followed, as mbedTLS does), with a NUL after it; NULL when
 * it cannot be read or is larger than LARGEST_DECODED_FILE. */
static unsigned char *read_file(const char *path, size_t *length)
{
    int descriptor = open(path, O_RDONLY | O_CLOEXEC);
    if (descriptor < 0)
        return NULL;
    struct stat status;
    unsigned char *bytes = NULL;
    if (fstat(descriptor, &status) == 0 && S_ISREG(status.st_mode) && status.st_size <= LARGEST_DECODED_FILE)
        bytes = malloc((size_t)status.st_size + 1);
    size_t done = 0;
    while (bytes && done < (size_t)status.st_size) {
        ssize_t count = read(descriptor, bytes + done, (size_t)status.st_size - done);
        if (count < 0 && errno == EINTR)
            continue;
        if (count <= 0) {
            free(bytes);
            bytes = NULL;
            break;
        }
        done += (size_t)count;
    }
    close(descriptor);
    if (bytes) {
        bytes[done] = 0;
        *length = done;
    }
    return bytes;
}

/* The value of a base64 digit; -1 for white space, -2 for anything else. */
static int base64_value(unsigned char character)
{
    if (character >= 'A' && character <= 'Z')
        return character - 'A';
    if (character >= 'a' && character <= 'z')
        return character - 'a' + 26;
    if (character >= '0' && character <= '9')
        return character - '0' + 52;
    if (character == '+')
        return 62;
    if (character == '/')
        return 63;
    if (character == ' ' || character == '\t' || character == '\r' || character == '\n')
        return -1;
    return -2;
}

/* Decodes the base64 text `text` (white space anywhere, `=` padding only at its end) into `out`,
 * which holds at least length / 4 * 3 + 3 bytes. Returns the bytes written; -1 for text that is
 * not base64. */
static long decode_base64(const unsigned char *text, size_t length, unsigned char *out)
{
    uint32_t group = 0;
    int digits = 0, padding = 0;
    long written = 0;
    for (size_t index = 0; index < length; index++) {
        if (text[index] == '=') {
            if (digits < 2 || ++padding > 4 - digits)
                return -1;
            continue;
        }
        int value = base64_values[text[index]];
        if (value == -1)
            continue;
        if (value < 0 || padding)
            return -1;
        group = group << 6 | (uint32_t)value;
        if (++digits == 4) {
            out[written++] = (unsigned char)(group >> 16);
            out[written++] = (unsigned char)(group >> 8);
            out[written++] = (unsigned char)group;
            group = 0;
            digits = 0;
        }
    }
    if (digits == 0)
        return written;
    if (digits + padding != 4)
        return -1;
    group <<= 6 * padding;
    out[written++] = (unsigned char)(group >> 16);
    if (digits == 3)
        out[written++] = (unsigned char)(group >> 8);
    return written;
}

/* Parses the certificates of the file `path` into `list`, with mbedtls_x509_crt_parse_file's
 * answer: 0 when every certificate parsed, the number that did not when some did, the first error
 * when none did. Each "-----BEGIN CERTIFICATE-----" block is decoded here and parsed by
 * mbedtls_x509_crt_parse_der; a file that cannot be read or holds no such block (a DER file, a
 * file of something else) is left to mbedTLS, whose error it then is. */
static int parse_authorities(void *list, const char *path)
{
    size_t length = 0;
    unsigned char *bytes = read_file(path, &length);
    if (!bytes || !memmem(bytes, length, certificate_header, sizeof certificate_header - 1)) {
        free(bytes);
        return parse_file(list, path);
    }
    int parsed = 0, failed = 0, first_error = 0;
    const unsigned char *next = bytes, *end = bytes + length;
    const unsigned char *header;
    while ((header = memmem(next, (size_t)(end - next), certificate_header, sizeof certificate_header - 1))) {
        const unsigned char *text = header + sizeof certificate_header - 1;
        const unsigned char *footer = memmem(text, (size_t)(end - text), certificate_footer, sizeof certificate_footer - 1);
        if (!footer) {
            /* mbedTLS's MBEDTLS_ERR_PEM_BAD_INPUT_DATA: a block cut short. */
            if (!first_error)
                first_error = -0x1480;
            failed++;
            break;
        }
        next = footer + sizeof certificate_footer - 1;
        size_t text_length = (size_t)(footer - text);
        unsigned char *der = malloc(text_length / 4 * 3 + 3);
        if (!der) {
            free(bytes);
            return X509_ALLOC_FAILED;
        }
        long der_length = decode_base64(text, text_length, der);
        /* mbedTLS's MBEDTLS_ERR_PEM_INVALID_DATA + MBEDTLS_ERR_BASE64_INVALID_CHARACTER. */
        int result = der_length > 0 ? parse_der(list, der, (size_t)der_length) : -0x1100 - 0x002C;
        free(der);
        if (result == X509_ALLOC_FAILED) {
            free(bytes);
            return result;
        }
        if (result == 0) {
            parsed++;
        } else {
            if (!first_error)
                first_error = result;
            failed++;
        }
    }
    free(bytes);
    return parsed ? failed : first_error;
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
    int result = parse_authorities(list, file);
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
        parse_authorities(noted_list, noted_file);
        free(noted_file);
        noted_file = NULL;
        noted_list = NULL;
    }
    static const void *ordered;
    if (set_curves && configuration != ordered) {
        /* libgit2's one configuration, ordered before its first connection starts. */
        set_curves((void *)configuration, curves);
        ordered = configuration;
    }
    pthread_mutex_unlock(&authorities);
    return setup_connection(connection, configuration);
}
