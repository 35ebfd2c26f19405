#include "symbolize/pass/sourcecheck.h"

#include "model/core/frameformat.h"
#include "model/core/hex.h"
#include "model/io/md5.h"

#include <llvm/DebugInfo/DWARF/DWARFCompileUnit.h>
#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/DebugInfo/DWARF/DWARFDebugLine.h>
#include <llvm/DebugInfo/DWARF/DWARFUnit.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/Error.h>

#include <filesystem>
#include <optional>

#include <sys/stat.h>

namespace symflame::symbolize {

namespace {

std::optional<model::Md5Digest> recordedMd5(
    const std::string& debugFile, uint64_t address, const std::string& recordedPath, std::string* error)
{
    auto binary = llvm::object::ObjectFile::createObjectFile(debugFile);
    if (!binary) {
        *error = debugFile + ": " + llvm::toString(binary.takeError());
        return std::nullopt;
    }
    // Warnings of a damaged line table are not this check's business: the file is just not found.
    auto ignore = [](llvm::Error e) { llvm::consumeError(std::move(e)); };
    auto ctx = llvm::DWARFContext::create(*binary->getBinary(), llvm::DWARFContext::ProcessDebugRelocations::Process,
        nullptr, "", ignore, ignore);
    const std::string wanted = std::filesystem::path(recordedPath).lexically_normal().string();
    if (llvm::DWARFCompileUnit* unit = ctx->getCompileUnitForCodeAddress(address); unit && unit->getVersion() >= 5) {
        const llvm::DWARFDebugLine::LineTable* table = ctx->getLineTableForUnit(unit);
        if (!table || !table->Prologue.ContentTypes.HasMD5)
            return std::nullopt;
        const auto compDir = unit->getCompilationDir();
        const llvm::StringRef dir = compDir ? llvm::StringRef(compDir) : llvm::StringRef();
        for (size_t i = 0; i < table->Prologue.FileNames.size(); ++i) {
            std::string name;
            if (!table->Prologue.getFileNameByIndex(
                    i, dir, llvm::DILineInfoSpecifier::FileLineInfoKind::AbsoluteFilePath, name))
                continue;
            if (name != recordedPath && std::filesystem::path(name).lexically_normal().string() != wanted)
                continue;
            model::Md5Digest digest;
            const auto& checksum = table->Prologue.FileNames[i].Checksum;
            std::copy(checksum.begin(), checksum.end(), digest.begin());
            return digest;
        }
    }
    return std::nullopt;
}

} // namespace

SourceMd5Check checkSourceMd5(
    const std::string& debugFile, uint64_t address, const std::string& recordedPath, const std::string& localPath)
{
    SourceMd5Check c;
    const auto recorded = recordedMd5(debugFile, address, recordedPath, &c.error);
    if (!recorded)
        return c;
    auto file = model::md5OfFile(localPath);
    if (!file) {
        c.error = localPath + ": " + file.error().message;
        return c;
    }
    c.recorded = true;
    c.recordedMd5 = model::hexBytes(*recorded); // as md5sum prints it
    c.fileMd5 = model::hexBytes(*file);
    c.matches = *recorded == *file;
    return c;
}

std::string sourceChangeWarning(
    const SourceFile& file, const std::string& recordedPath, int64_t lastLine, const SourceBuild& build)
{
    if (!file.found())
        return {};
    if (lastLine > int64_t(file.lines.size()))
        return "the debug info names line " + std::to_string(lastLine) + " of " + file.path + ", which has "
            + std::to_string(file.lines.size()) + ": it changed since the build";
    if (!file.origin.empty()) // a source map's text: no build to compare it with
        return {};
    const std::string binaryName(model::baseName(build.binary.empty() ? build.debugFile : build.binary));
    if (!build.debugFile.empty()) {
        const SourceMd5Check md5 = checkSourceMd5(build.debugFile, build.address, recordedPath, file.path);
        if (md5.recorded)
            return md5.matches ? std::string()
                               : file.path + ": its MD5 (" + md5.fileMd5 + ") differs from the debug info's ("
                    + md5.recordedMd5 + "): it is not the file " + binaryName + " was built from";
    }
    struct stat st {};
    if (!build.binary.empty() && ::stat(build.binary.c_str(), &st) == 0 && file.mtime > int64_t(st.st_mtime))
        return file.path + " was modified after " + binaryName + " was built: its lines may not be the ones measured";
    return {};
}

} // namespace symflame::symbolize
