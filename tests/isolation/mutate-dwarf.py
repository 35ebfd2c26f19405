#!/usr/bin/env python3
# The search that looked for debug files crashing or hanging LLVM's DWARF reader through
# `symflame lookup` (README, "Debug info from elsewhere"): N copies of FILE, each with 1 to 7 bytes
# of one random .debug_* section set to 0, 0xff, 0x7f, 0x80, a random value or one bit flipped,
# written over FILE in turn; `symflame lookup --obj OBJ [--debug-dir DIR]` reads the addresses of
# ADDRESSES (one per line) from each (20 s limit). Prints every run that ends in a signal, another
# exit status than 0 or 2, or the time limit, keeps that copy as FILE.found-SEED-I, restores FILE
# and prints the count of each outcome. Not run by ctest.
#
# usage: mutate-dwarf.py SYMFLAME FILE OBJ ADDRESSES N SEED [DEBUG_DIR]
#   FILE is OBJ itself, or OBJ's separate debug file (or dwz supplementary file) under DEBUG_DIR.
import random
import struct
import subprocess
import sys


def sections(data):
    """ELF64 little-endian section headers: name -> (offset, size)."""
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3a)
    headers = [struct.unpack_from('<IIQQQQ', data, shoff + i * shentsize) for i in range(shnum)]
    strtab = headers[shstrndx][4]
    out = {}
    for name, _, _, _, offset, size in headers:
        end = data.index(b'\0', strtab + name)
        out[data[strtab + name:end].decode()] = (offset, size)
    return out


def main():
    if len(sys.argv) not in (7, 8):
        sys.exit(__doc__ or 'usage: mutate-dwarf.py SYMFLAME FILE OBJ ADDRESSES N SEED [DEBUG_DIR]')
    symflame, target, obj, address_file = sys.argv[1:5]
    count, seed = int(sys.argv[5]), int(sys.argv[6])
    command = [symflame, 'lookup', '--obj', obj] + (['--debug-dir', sys.argv[7]] if len(sys.argv) == 8 else [])
    original = open(target, 'rb').read()
    secs = sections(original)
    debug = sorted(s for s in secs if s.startswith('.debug_') and secs[s][1] > 0)
    addresses = open(address_file, 'rb').read()
    rng = random.Random(seed)
    outcomes = {}
    try:
        for i in range(count):
            data = bytearray(original)
            section = rng.choice(debug)
            offset, size = secs[section]
            for _ in range(rng.randrange(1, 8)):
                p = offset + rng.randrange(size)
                data[p] = rng.choice([0, 0xff, 0x7f, 0x80, rng.randrange(256), data[p] ^ (1 << rng.randrange(8))])
            open(target, 'wb').write(data)
            try:
                outcome = subprocess.run(command, input=addresses, capture_output=True, timeout=20).returncode
            except subprocess.TimeoutExpired:
                outcome = 'timeout'
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
            if outcome not in (0, 2):
                open('%s.found-%d-%d' % (target, seed, i), 'wb').write(data)
                print(i, section, outcome, flush=True)
    finally:
        open(target, 'wb').write(original)
    print('outcomes:', outcomes, 'sections:', ' '.join(debug))


if __name__ == '__main__':
    main()
