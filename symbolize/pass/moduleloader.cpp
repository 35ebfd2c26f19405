#include "symbolize/pass/moduleloader.h"

#include "symbolize/engines/openengine.h"
#include "symbolize/isolation/isolatedengine.h"

namespace symflame::symbolize {

model::Result<std::unique_ptr<SymbolizerEngine>> openModule(const LocateResult& located, const ModuleOptions& options)
{
    if (located.status == LocateStatus::Found && located.binary && shouldIsolate(located, options.isolation.policy)) {
        auto isolated = IsolatedEngine::open(located, options, options.isolation);
        if (!isolated)
            return isolated.error();
        return std::unique_ptr<SymbolizerEngine>(std::move(*isolated));
    }
    return openEngine(located, options);
}

} // namespace symflame::symbolize
