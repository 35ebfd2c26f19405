#!/bin/sh
# Makes a MiniDebugInfo binary the way Fedora's find-debuginfo does (the recipe in GDB's manual,
# "MiniDebugInfo"): the function symbols that .dynsym lacks go into a debug-only ELF file with
# no DWARF, which is xz-compressed into the stripped binary's .gnu_debugdata section.
# Usage: minidebuginfo.sh NM OBJCOPY STRIP XZ INPUT OUTPUT
set -e
nm=$1 objcopy=$2 strip=$3 xz=$4 in=$5 out=$6
tmp="$out.tmp.d"
rm -rf "$tmp"
mkdir -p "$tmp"
"$nm" -D "$in" --format=posix --defined-only | awk '{ print $1 }' | sort > "$tmp/dynsyms"
"$nm" "$in" --format=posix --defined-only | awk '{ if ($2 == "T" || $2 == "t" || $2 == "D") print $1 }' \
    | sort > "$tmp/funcsyms"
comm -13 "$tmp/dynsyms" "$tmp/funcsyms" > "$tmp/keep_symbols"
"$objcopy" --only-keep-debug "$in" "$tmp/debug"
"$objcopy" -S --remove-section .gdb_index --remove-section .comment --keep-symbols="$tmp/keep_symbols" \
    "$tmp/debug" "$tmp/mini_debuginfo"
"$strip" --strip-all -R .comment "$in" -o "$tmp/stripped"
"$xz" -f "$tmp/mini_debuginfo"
"$objcopy" --add-section .gnu_debugdata="$tmp/mini_debuginfo.xz" "$tmp/stripped" "$out"
rm -rf "$tmp"
