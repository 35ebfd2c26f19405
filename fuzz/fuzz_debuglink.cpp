// Fuzz harness: .gnu_debuglink, .gnu_debugaltlink and .debug_sup as the locator follows them.
// Each input builds a binary, its separate debug file and a dwz supplementary file in a fresh
// directory under a private temporary directory (removed at exit), then runs
// DebugInfoLocator::locate() on the binary with that directory's debug dir only.
//
// Input: flags (2 bytes), a length-prefixed name or raw .gnu_debuglink section, a length-prefixed
// path or raw .gnu_debugaltlink (or .debug_sup) section, then the build ID (up to 20 bytes).
// Structured inputs (a file name and a correct or wrong CRC, the files placed where the locator
// looks) check the decisions: a debug file with the right name, CRC, build ID and DWARF in one of
// the debuglink directories is found there, a supplementary file with the linked build ID is
// found, a link naming a path is not followed; raw inputs check the invariants (a debug file taken has the CRC the link
// names and lies inside the temporary directory; a supplementary file taken has the linked build ID).
#include "fuzz/fuzzelf.h"
#include "symbolize/locate/debuginfolocator.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace symflame::symbolize;
using symflame::fuzz::ElfSectionSpec;

namespace fs = std::filesystem;

namespace {

// Bitwise CRC-32 (reflected 0xEDB88320), written here rather than taken from symbolize/locate/crc32 so
// that the harness checks the locator's checksum against an independent one.
uint32_t referenceCrc32(const std::vector<uint8_t>& bytes)
{
    uint32_t crc = 0xffffffffu;
    for (uint8_t b : bytes) {
        crc ^= b;
        for (int i = 0; i < 8; ++i)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

[[noreturn]] void fail(const std::string& what)
{
    std::fprintf(stderr, "fuzz_debuglink: invariant broken: %s\n", what.c_str());
    std::abort();
}

const fs::path& tempRoot()
{
    // Never destroyed: the exit handler that removes the directory runs after static destructors.
    static const fs::path& root = *[] {
        std::string tmpl = (fs::temp_directory_path() / "symflame-fuzz-debuglink-XXXXXX").string();
        if (!::mkdtemp(tmpl.data()))
            fail("cannot make a temporary directory");
        std::atexit([] {
            std::error_code ec;
            fs::remove_all(tempRoot(), ec);
        });
        return new fs::path(tmpl);
    }();
    return root;
}

void writeFile(const fs::path& p, const std::vector<uint8_t>& bytes)
{
    fs::create_directories(p.parent_path());
    std::ofstream f(p, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

bool inside(const fs::path& root, const std::string& path)
{
    std::error_code ec;
    const fs::path c = fs::weakly_canonical(path, ec);
    const std::string r = root.string() + "/";
    return !ec && c.string().starts_with(r);
}

std::vector<uint8_t> take(std::span<const uint8_t>& in, size_t max)
{
    const size_t n = std::min(in.size(), max);
    std::vector<uint8_t> out(in.begin(), in.begin() + n);
    in = in.subspan(n);
    return out;
}

std::vector<uint8_t> takeLengthPrefixed(std::span<const uint8_t>& in)
{
    const size_t n = in.empty() ? 0 : in[0];
    if (!in.empty())
        in = in.subspan(1);
    return take(in, n);
}

std::string plainName(const std::vector<uint8_t>& bytes)
{
    std::string s;
    for (uint8_t b : bytes)
        if (std::isalnum(b) || b == '_' || b == '-')
            s += static_cast<char>(b);
    return s + ".debug";
}

std::vector<uint8_t> debugInfoSection()
{
    // A DWARF 4 compile unit header with no DIEs worth reading: the locator only needs the section.
    return { 7, 0, 0, 0, 4, 0, 0, 0, 0, 0, 8, 0, 0 };
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    std::span<const uint8_t> in(data, size);
    const uint8_t f0 = in.size() > 0 ? in[0] : 0;
    const uint8_t f1 = in.size() > 1 ? in[1] : 0;
    in = in.subspan(std::min<size_t>(in.size(), 2));
    const bool rawLink = f0 & 1;
    const bool wrongCrc = f0 & 2;
    const int debugPlace = (f0 >> 2) & 3; // 0 binary's dir, 1 its .debug/, 2 <debugdir>/<binary's dir>/, 3 none
    const bool debugHasDwarf = !(f0 & 16);
    const bool debugIdMismatch = f0 & 32;
    const bool rawAlt = f0 & 64;
    const bool wrongSupId = f0 & 128;
    const bool hasAlt = f1 & 1;
    const bool altAsDebugSup = f1 & 2;
    const int supPlace = (f1 >> 2) & 3; // 0 next to the debug file, 1 build-id dir, 2 absolute path, 3 none
    const bool profileHasBuildId = f1 & 16;
    // The link names a path ("../elsewhere/x.debug") to a file that exists with the right CRC:
    // never to be followed (objcopy records a file name; a path lets a binary pick any file).
    const bool pathLink = f1 & 32;
    const std::vector<uint8_t> linkBytes = takeLengthPrefixed(in);
    const std::vector<uint8_t> altBytes = takeLengthPrefixed(in);
    const std::vector<uint8_t> binId = take(in, 20);
    std::vector<uint8_t> debugId = binId;
    if (debugIdMismatch && debugId.empty())
        debugId.push_back(0x42);
    else if (debugIdMismatch)
        debugId.back() ^= 1;
    std::vector<uint8_t> supId(8);
    for (size_t i = 0; i < supId.size(); ++i)
        supId[i] = static_cast<uint8_t>((i < binId.size() ? binId[i] : i) ^ 0xa5);
    supId[0] = binId.empty() ? 0xd0 : static_cast<uint8_t>(binId[0] ^ 0xff);
    std::vector<uint8_t> linkedSupId = supId;
    if (wrongSupId)
        linkedSupId.back() ^= 1;

    std::error_code ec;
    const fs::path t = tempRoot() / "t";
    fs::remove_all(t, ec);
    const fs::path binDir = t / "bin", debugDir = t / "debug";
    fs::create_directories(binDir);
    fs::create_directories(debugDir);
    const std::string debugName = plainName(linkBytes);
    const fs::path absBin = fs::absolute(binDir).lexically_normal();
    const fs::path placed[3] = { binDir / debugName, binDir / ".debug" / debugName,
        fs::path(debugDir.string() + absBin.string()) / debugName };
    const fs::path supPath = debugPlace < 3 ? placed[debugPlace].parent_path() / "common.dwz" : t / "common.dwz";
    const fs::path supAbsolute = t / "dwz" / "common.dwz";
    const std::string supHex = toHex(supId);

    // The supplementary file.
    std::vector<ElfSectionSpec> supSections { { ".debug_info", 1, 0, debugInfoSection() } };
    if (!altAsDebugSup)
        supSections.push_back({ ".note.gnu.build-id", 7, 2, symflame::fuzz::buildIdNote(supId) });
    else // DWARF 5 .debug_sup, is_supplementary 1, its checksum
        supSections.push_back({ ".debug_sup", 1, 0, [&] {
                                   std::vector<uint8_t> d { 5, 0, 1, 0, static_cast<uint8_t>(supId.size()) };
                                   d.insert(d.end(), supId.begin(), supId.end());
                                   return d;
                               }() });
    const std::vector<uint8_t> supBytes = symflame::fuzz::writeElf(3, supSections, {});
    fs::path supExpected;
    if (supPlace == 0 && debugPlace < 3)
        supExpected = supPath;
    else if (supPlace == 1 && !altAsDebugSup)
        supExpected = debugDir / ".build-id" / supHex.substr(0, 2) / (supHex.substr(2) + ".debug");
    else if (supPlace == 2)
        supExpected = supAbsolute;
    if (!supExpected.empty())
        writeFile(supExpected, supBytes);

    // The separate debug file.
    std::vector<ElfSectionSpec> debugSections { { ".text", 8, 6, std::vector<uint8_t>(16) } };
    if (!debugId.empty())
        debugSections.push_back({ ".note.gnu.build-id", 7, 2, symflame::fuzz::buildIdNote(debugId) });
    if (debugHasDwarf)
        debugSections.push_back({ ".debug_info", 1, 0, debugInfoSection() });
    if (hasAlt) {
        std::vector<uint8_t> alt;
        std::string recorded;
        if (rawAlt) {
            alt = altBytes;
        } else if (altAsDebugSup) {
            recorded = supPlace == 2 ? supAbsolute.string() : "common.dwz";
            alt = { 5, 0, 0 };
            alt.insert(alt.end(), recorded.begin(), recorded.end());
            alt.push_back(0);
            alt.push_back(static_cast<uint8_t>(linkedSupId.size()));
            alt.insert(alt.end(), linkedSupId.begin(), linkedSupId.end());
        } else {
            recorded = supPlace == 2 ? supAbsolute.string()
                : supPlace == 1      ? (t / "missing.dwz").string()
                                     : "common.dwz";
            alt.assign(recorded.begin(), recorded.end());
            alt.push_back(0);
            alt.insert(alt.end(), linkedSupId.begin(), linkedSupId.end());
        }
        debugSections.push_back({ altAsDebugSup ? ".debug_sup" : ".gnu_debugaltlink", 1, 0, alt });
    }
    const std::vector<uint8_t> debugBytes = symflame::fuzz::writeElf(3, debugSections, {});
    if (debugPlace < 3)
        writeFile(placed[debugPlace], debugBytes);
    if (pathLink)
        writeFile(t / "elsewhere" / debugName, debugBytes);

    // The binary, whose .gnu_debuglink names the debug file.
    std::vector<uint8_t> link;
    if (rawLink) {
        link = linkBytes;
    } else {
        const std::string name = pathLink ? "../../elsewhere/" + debugName : debugName;
        link.assign(name.begin(), name.end());
        do
            link.push_back(0);
        while (link.size() % 4);
        const uint32_t crc = referenceCrc32(debugBytes) ^ (wrongCrc ? 1u : 0u);
        for (int i = 0; i < 4; ++i)
            link.push_back(static_cast<uint8_t>(crc >> (8 * i)));
    }
    std::vector<ElfSectionSpec> binSections { { ".text", 1, 6, std::vector<uint8_t>(16, 0xc3) } };
    if (!binId.empty())
        binSections.push_back({ ".note.gnu.build-id", 7, 2, symflame::fuzz::buildIdNote(binId) });
    binSections.push_back({ ".gnu_debuglink", 1, 0, link });
    const fs::path binary = binDir / "prog";
    writeFile(binary, symflame::fuzz::writeElf(3, binSections, {}));

    LocatorOptions options;
    options.debugDirs = { debugDir.string() };
    options.useDefaultDebugDir = false;
    DebugInfoLocator locator(options);
    const std::string wanted = profileHasBuildId ? toHex(binId) : std::string();
    const LocateResult r = locator.locate(binary.string(), wanted);
    const std::string summary = r.summary();

    if (r.status != LocateStatus::Found)
        fail("the binary itself was not found: " + summary);
    if (r.dwarf && !r.dwarf->contents().readableDwarf())
        fail("debug info taken from a file without readable DWARF: " + r.dwarfPath);
    if (r.source == DebugSource::DebugLink) {
        const auto& l = r.binary->debugLink();
        if (!l)
            fail("debuglink source without a .gnu_debuglink");
        const std::vector<uint8_t> taken(r.dwarf->bytes().begin(), r.dwarf->bytes().end());
        if (referenceCrc32(taken) != l->crc)
            fail("debug file taken with a CRC the link does not name: " + r.dwarfPath);
        if (l->name.find('/') != std::string::npos || l->name == "." || l->name == "..")
            fail("followed a debuglink that is not a file name: " + l->name);
        if (!inside(t, r.dwarfPath))
            fail("debug file taken from outside the debug directories: " + r.dwarfPath);
        if (fs::equivalent(r.dwarfPath, binary, ec))
            fail("the binary taken as its own debug file");
    }
    const bool expectDebug
        = !rawLink && !pathLink && !wrongCrc && debugPlace < 3 && debugHasDwarf && (!debugIdMismatch || binId.empty());
    if (expectDebug && (r.source != DebugSource::DebugLink || !fs::equivalent(r.dwarfPath, placed[debugPlace], ec)))
        fail("the debug file in " + placed[debugPlace].string() + " was not found: " + summary);
    if (!expectDebug && !rawLink && r.dwarf)
        fail("a debug file was taken that should not have been: " + r.dwarfPath);

    if (r.supplementary) {
        const auto& alt = r.dwarf->debugAltLink();
        if (!alt)
            fail("a supplementary file without an alt link");
        const std::string& id = alt->debugSup ? r.supplementary->supplementaryChecksum() : r.supplementary->buildId();
        if (id != alt->buildId)
            fail("supplementary file " + r.supplementaryPath + " does not have the linked ID " + alt->buildId);
    }
    if (r.dwarf && hasAlt && !rawAlt) {
        const bool expectSup = !wrongSupId && !supExpected.empty();
        if (expectSup && (!r.supplementary || !fs::equivalent(r.supplementaryPath, supExpected, ec)))
            fail("the supplementary file " + supExpected.string() + " was not found: " + summary);
        if (!expectSup && r.supplementary)
            fail("a supplementary file was taken that should not have been: " + r.supplementaryPath);
        if (!expectSup && r.supplementaryProblem.empty())
            fail("no supplementary file and no problem reported: " + summary);
    }
    return 0;
}
