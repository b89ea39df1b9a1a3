# Concord's one install step, sourced by every script the README names (scripts/airplane-mode,
# scripts/test, scripts/bench): Swift on the PATH, and the Debian packages the build and the
# scripts need, installed with apt-get when missing.
#
#   source scripts/lib/setup.sh
#   concord_setup [PACKAGE...]     # libgit2-dev, libmbedtls-dev, pkg-config, git, python3, openssh-client, and the packages named
#   concord_setup $(concord_server_packages $(concord_cloud_option "$@"))   # and a --cloud option's server
#
# A package named is installed when dpkg does not list it as installed. Installing needs root or sudo; without
# either, the step says what to install and fails.

concord_setup() {
    if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
        export PATH="/opt/swift/usr/bin:$PATH"
    fi
    if ! command -v swift >/dev/null 2>&1; then
        echo "concord: Swift 6 is needed and not on the PATH (https://swift.org/install/linux/)" >&2
        return 1
    fi
    local missing=()
    if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists libgit2; then
        missing+=(libgit2-dev pkg-config)
    fi
    # The Git wrapper also calls mbedTLS (a pack's SHA-1 checksum): libgit2-dev brings it on
    # Debian, named here for systems where it does not.
    [ -e /usr/include/mbedtls/sha1.h ] || missing+=(libmbedtls-dev)
    command -v git >/dev/null 2>&1 || missing+=(git)
    command -v python3 >/dev/null 2>&1 || missing+=(python3)
    # An ssh cloud is reached through OpenSSH's own client.
    command -v ssh >/dev/null 2>&1 || missing+=(openssh-client)
    local package
    for package in "$@"; do
        # Installed, not merely known: a package removed but not purged keeps its status entry.
        [ "$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null)" = "install ok installed" ] || missing+=("$package")
    done
    [ "${#missing[@]}" -eq 0 ] && return 0
    local root=()
    if [ "$(id -u)" -ne 0 ]; then
        if ! command -v sudo >/dev/null 2>&1; then
            echo "concord: missing ${missing[*]}; install them as root: apt-get install -y ${missing[*]}" >&2
            return 1
        fi
        root=(sudo)
    fi
    echo "==> installing ${missing[*]}" >&2
    "${root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
    "${root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
}

# The Debian packages of the cloud servers named (ssh, https, gitolite; others need none): OpenSSH's server
# and client; lighttpd with its TLS module (a package of its own, only recommended by lighttpd)
# and openssl for the certificates; gitolite3 for a shared host with per-user rights.
concord_server_packages() {
    local cloud
    for cloud in "$@"; do
        case "$cloud" in
            ssh) echo openssh-server openssh-client ;;
            https) echo lighttpd lighttpd-mod-openssl openssl ;;
            gitolite) echo gitolite3 ;;
        esac
    done
}

# The value of a script's --cloud option (`--cloud NAME` or `--cloud=NAME`), if any.
concord_cloud_option() {
    local argument take=0
    for argument in "$@"; do
        if [ "$take" = 1 ]; then echo "$argument"; take=0; fi
        case "$argument" in
            --cloud) take=1 ;;
            --cloud=*) echo "${argument#--cloud=}" ;;
        esac
    done
}
