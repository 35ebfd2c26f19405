#include "app/labelviewargs.h"

namespace symflame::app {

namespace {

std::vector<std::string> splitKeys(const std::string& text)
{
    std::vector<std::string> keys;
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find(',', start);
        if (end == std::string::npos)
            end = text.size();
        if (end > start)
            keys.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return keys;
}

} // namespace

std::optional<model::LabelView> labelViewFrom(const ParsedArgs& args, const model::Profile& profile, std::string* error)
{
    model::LabelView view;
    for (const auto& [name, value] : args.options) {
        if (name == "group-by" && value == "none") {
            view.rootKeys.clear();
        } else if (name == "group-by" || name == "group-leaf") {
            const auto keys = splitKeys(value);
            if (keys.empty()) {
                *error = "--" + std::string(name) + " wants label keys (KEY[,KEY...]), not '" + value + "'";
                return std::nullopt;
            }
            auto& into = name == "group-by" ? view.rootKeys : view.leafKeys;
            into.insert(into.end(), keys.begin(), keys.end());
        } else if (name == "tag-focus" || name == "tag-ignore") {
            auto filter = model::TagFilter::parse(value);
            if (!filter) {
                *error = "--" + std::string(name) + ": " + filter.error().message;
                return std::nullopt;
            }
            (name == "tag-focus" ? view.focus : view.ignore).push_back(std::move(filter).value());
        } else if (name == "time-range") {
            const auto span = model::timeSpan(profile);
            const int64_t start = profile.timeNanos != 0 ? profile.timeNanos : span ? span->start : 0;
            auto range = model::parseTimeRange(value, start);
            if (!range) {
                *error = range.error().message;
                return std::nullopt;
            }
            view.timeRange = *range;
        }
    }
    return view;
}

bool applyLabelViewOptions(const ParsedArgs& args, model::Profile& profile, int* exitCode)
{
    std::string error;
    const auto view = labelViewFrom(args, profile, &error);
    if (!view) {
        *exitCode = usageError(error);
        return false;
    }
    if (view->empty())
        return true;
    auto applied = model::applyLabelView(profile, *view);
    if (!applied) {
        *exitCode = usageError(applied.error().message);
        return false;
    }
    profile = std::move(applied).value();
    return true;
}

} // namespace symflame::app
