#include "app/printers/json.h"

namespace symflame::app {

void writeJson(Output& out, const Json& value)
{
    out << value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Json jsonArray(const std::vector<std::string>& items)
{
    Json array = Json::array();
    for (const std::string& item : items)
        array.push_back(item);
    return array;
}

} // namespace symflame::app
