// What `symflame symbolize` prints after writing its output: the report, one line per mapping and
// per script, or (--json-report) one JSON array of objects, the scripts after the mappings.
#pragma once

#include "app/output.h"
#include "model/core/profile.h"
#include "symbolize/pass/symbolizationpass.h"

namespace symflame::app {

void printSymbolizeReportText(Output& out, const symbolize::SymbolizeReport& report);
/// profile: the symbolized profile, for the mappings' ids.
void printSymbolizeReportJson(Output& out, const model::Profile& profile, const symbolize::SymbolizeReport& report);

} // namespace symflame::app
