// Helpers shared by the tests of symbolize/ over the fixture binaries that tests/fixtures/symfixtures.cmake
// builds (SYMFLAME_FIXTURE_DIR, SYMFLAME_HAVE_* come from its compile definitions).
#pragma once

#include "processhelpers.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace symtest {

inline QString fixture(const QString& name)
{
    return QStringLiteral(SYMFLAME_FIXTURE_DIR "/") + name;
}

/// Why a fixture can't exist on this machine (a compiler the build did not find), or "".
inline QString missingTool(const QString& path)
{
    const QString name = path.section('/', -1);
    if (name.startsWith("fs_") && !SYMFLAME_HAVE_CROSS)
        return QStringLiteral("clang or ld.lld not found: no cross-compiled fixtures");
    if (name == "cxx_clang" && !SYMFLAME_HAVE_CLANG)
        return QStringLiteral("clang not found");
    if (name == "rust_prog" && !SYMFLAME_HAVE_RUST)
        return QStringLiteral("rustc not found");
    if (name == "go_prog" && !SYMFLAME_HAVE_GO)
        return QStringLiteral("go not found");
    return {};
}

/// Runs program with args (and input on stdin); its stdout, or empty when it failed or did
/// not finish within timeoutMs (the failure is logged). The name the symbolize tests use for
/// symflame::testing::runForOutput.
inline QByteArray run(const QString& program, const QStringList& args, const QByteArray& input = {},
                      int timeoutMs = 300000)
{
    return symflame::testing::runForOutput(program, args, input, timeoutMs);
}

} // namespace symtest
