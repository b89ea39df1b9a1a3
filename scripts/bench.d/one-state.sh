#!/usr/bin/env bash
# Instructions of one sync and one resolve on a device state built the same way for any binary
# (benchmarks/reshape.md): a container of 10,000 documents (flat, or 100 folders of 100), cloned,
# 100 one-document saves a side (50 of them the same documents), device A synced; then callgrind
# counts device B's `sync` and, on its result, `resolve --all --latest`.
#
#   scripts/bench.d/one-state.sh flat|nested CONCORD_BINARY WORKDIR
#
# Needs valgrind (apt-get install -y valgrind). The states are kept in WORKDIR (b0, cloud0.git) so
# that another binary can be measured on exactly the same state: copy them back and run it.
set -euo pipefail
shape=$1; bin=$2; d=$3
rm -rf "$d"; mkdir -p "$d"; cd "$d"
git init -q --bare cloud.git
"$bin" init a --device A --remote "$d/cloud.git" >/dev/null
path() { if [ "$shape" = flat ]; then printf 'doc%05d.txt' "$1"; else printf 'f%02d/g%d/doc%05d.txt' $(($1 / 1000)) $((($1 / 100) % 10)) "$1"; fi; }
for i in $(seq 0 9999); do p="a/$(path "$i")"; mkdir -p "$(dirname "$p")"; printf 'document %d\n%.0s' "$i" 1 2 3 4 5 > "$p"; done
"$bin" -C a save --all >/dev/null
"$bin" -C a sync >/dev/null
"$bin" clone "$d/cloud.git" b --device B >/dev/null
for i in $(seq 0 99); do printf 'A edit %d\n' "$i" | "$bin" -C a save "$(path "$i")" >/dev/null; done
for i in $(seq 50 149); do printf 'B edit %d\n' "$i" | "$bin" -C b save "$(path "$i")" >/dev/null; done
"$bin" -C a sync >/dev/null
cp -a b b0; cp -a cloud.git cloud0.git
valgrind --tool=callgrind --callgrind-out-file="$d/cg-sync.out" "$bin" -C b sync 2>&1 | grep 'refs' | sed 's/^/sync: /'
cp -a b b1
valgrind --tool=callgrind --callgrind-out-file="$d/cg-resolve.out" "$bin" -C b1 resolve --all --latest 2>&1 | grep 'refs' | sed 's/^/resolve: /'
