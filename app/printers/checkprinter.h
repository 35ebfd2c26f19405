// What `symflame debuginfo check` prints for each binary: what it holds for symbolization and
// which debug info would be used, as aligned text rows or as one JSON array of objects.
#pragma once

#include "app/output.h"
#include "app/printers/json.h"
#include "symbolize/pass/debuginfocheck.h"

namespace symflame::app {

class CheckPrinter {
public:
    CheckPrinter(Output& out, bool json)
        : m_out(out)
        , m_json(json)
    {
    }

    void print(const symbolize::BinaryCheck& check);
    /// After the last binary (JSON: writes the array).
    void finish();

private:
    void printText(const symbolize::BinaryCheck& check);
    static Json toJson(const symbolize::BinaryCheck& check);

    Output& m_out;
    bool m_json;
    Json m_checks = Json::array();
};

} // namespace symflame::app
