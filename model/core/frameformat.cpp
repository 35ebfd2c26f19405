// How a frame without a function reads: "binary+0xoffset".
#include "model/core/frameformat.h"

namespace symflame::model {

std::string unsymbolizedName(const Profile& profile, const Location& location)
{
    const Mapping* m = profile.mappingOf(location);
    if (!m || m->file.empty())
        return hexNumber(location.address);
    // Addresses below the mapping start are taken to be file addresses already (producers
    // that write normalized addresses), rather than wrapping around.
    const uint64_t fileOffset = location.address >= m->start && !m->has(Mapping::ElfAddresses)
        ? location.address - m->start + m->offset
        : location.address;
    std::string out(baseName(profile.str(m->file)));
    out += '+';
    out += hexNumber(fileOffset);
    return out;
}

} // namespace symflame::model
