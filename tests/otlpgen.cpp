// Build-time generator of OTLP test files: the same samples in every layout symflame reads
// (1.10.0, 1.9.0, 1.8.0, 1.7.0), as ProfilesData and as an ExportProfilesServiceRequest body, and
// as pprof, written with protoc-generated classes from tests/proto (an encoder independent of
// symflame's model/io/protowire.h). tst_otlp reads them.
//
//   otlpgen OUTDIR
//
// The content (see writeScenario): two resources ("checkout"/"app" and "inventory"/"inv"); the
// first has a scope with a cpu profile (values, timestamps, a link, thread.name labels) and a
// second scope with a samples/count profile of timestamps only; the second resource a wall
// profile. Mappings: /usr/bin/app with a GNU build ID, /usr/lib/libx.so known only by its
// htlhash, [kernel.kallsyms]; frames native (one without lines), kernel and cpython.
#include "proto/otlp/v1_10.pb.h"
#include "proto/otlp/v1_7.pb.h"
#include "proto/otlp/v1_8.pb.h"
#include "proto/otlp/v1_9.pb.h"
#include "proto/profile.pb.h"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

// --- the scenario, format-free
const std::vector<std::string> kStrings
    = { "", "cpu", "nanoseconds", "main", "work", "leaf", "/src/app.c", "/usr/bin/app", "thread.name", "worker-1",
          "worker-2", "process.executable.build_id.gnu", "abcdef0123456789abcdef0123456789abcdef01",
          "profile.frame.type", "native", "kernel", "do_syscall_64", "cpython", "handler", "/src/h.py",
          "[kernel.kallsyms]", "process.executable.build_id.htlhash", "0123456789abcdef0123456789abcdef",
          "/usr/lib/libx.so", "samples", "count", "wall", "service.name", "process.executable.name" };
enum S {
    Cpu = 1,
    Ns = 2,
    Main = 3,
    Work = 4,
    Leaf = 5,
    AppC = 6,
    AppBin = 7,
    ThreadName = 8,
    Worker1 = 9,
    Worker2 = 10,
    GnuKey = 11,
    GnuId = 12,
    FrameType = 13,
    Native = 14,
    Kernel = 15,
    Syscall = 16,
    CPython = 17,
    Handler = 18,
    HPy = 19,
    Kallsyms = 20,
    HtlKey = 21,
    HtlId = 22,
    LibX = 23,
    Samples = 24,
    Count = 25,
    Wall = 26
};

struct Attr {
    int key;
    int value; // string index
};
// attribute_table; entry 0 is the zero value
const std::vector<Attr> kAttrs = { { 0, 0 }, { ThreadName, Worker1 }, { ThreadName, Worker2 }, { GnuKey, GnuId },
    { FrameType, Native }, { FrameType, Kernel }, { FrameType, CPython }, { HtlKey, HtlId } };

struct MappingDef {
    uint64_t start, limit, offset;
    int file;
    std::vector<int> attrs;
};
const std::vector<MappingDef> kMappings = { { 0, 0, 0, 0, {} }, { 0x400000, 0x500000, 0, AppBin, { 3 } },
    { 0x7f0000000000, 0x7f0000100000, 0x1000, LibX, { 7 } },
    { 0xffffffff80000000, 0xffffffffa0000000, 0, Kallsyms, {} } };

struct FunctionDef {
    int name, file;
    int64_t startLine;
};
const std::vector<FunctionDef> kFunctions = { { 0, 0, 0 }, { Main, AppC, 10 }, { Work, AppC, 20 }, { Leaf, AppC, 28 },
    { Syscall, 0, 0 }, { Handler, HPy, 5 } };

struct LineDef {
    int function;
    int64_t line;
};
struct LocationDef {
    int mapping;
    uint64_t address;
    std::vector<LineDef> lines;
    std::vector<int> attrs;
};
const std::vector<LocationDef> kLocations
    = { { 0, 0, {}, {} }, { 1, 0x1100, { { 1, 12 } }, { 4 } }, { 1, 0x1200, { { 3, 30 }, { 2, 21 } }, { 4 } },
          { 2, 0x2345, {}, { 4 } }, { 3, 0xffffffff81000000, { { 4, 0 } }, { 5 } }, { 0, 0, { { 5, 7 } }, { 6 } } };

// stack_table; entry 0 is empty. Leaf first.
const std::vector<std::vector<int>> kStacks = { {}, { 2, 1 }, { 3, 2, 1 }, { 4, 3, 1 }, { 5, 1 } };

struct SampleDef {
    int stack;
    std::vector<int64_t> values;
    std::vector<uint64_t> timestamps;
    std::vector<int> attrs;
    int link = 0;
};
constexpr uint64_t T0 = 1700000000000000000ull;
struct ProfileDef {
    int type, unit;
    std::vector<SampleDef> samples;
};
const ProfileDef kCpu = { Cpu, Ns,
    { { 1, { 10000000 }, {}, { 1 } }, { 2, { 20000000, 30000000 }, { T0 + 100, T0 + 200 }, { 2 }, 1 },
        { 3, { 40000000 }, {}, { 1 } }, { 4, { 5000000 }, {}, {} }, { 1, { 7000000 }, {}, {} } } };
const ProfileDef kCount = { Samples, Count, { { 2, {}, { T0 + 1, T0 + 2, T0 + 3 }, {} }, { 1, {}, { T0 + 4 }, {} } } };
const ProfileDef kWall = { Wall, Ns, { { 4, { 100 }, {}, {} } } };

const std::string kTraceId = std::string("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10", 16);
const std::string kSpanId = std::string("\xa1\xa2\xa3\xa4\xa5\xa6\xa7\xa8", 8);

// --- the three layouts with a stack table (1.8, 1.9, 1.10): the same accessors but for
// Profile.sample(s), Location.line(s) and what only some of them have.
template <typename NS> struct Traits;
template <> struct Traits<symflame::otlptest::v1_10::ProfilesData> {
    static constexpr int version = 10;
};
template <> struct Traits<symflame::otlptest::v1_9::ProfilesData> {
    static constexpr int version = 9;
};
template <> struct Traits<symflame::otlptest::v1_8::ProfilesData> {
    static constexpr int version = 8;
};

template <typename Data> void fillDictionary(Data& data)
{
    auto* d = data.mutable_dictionary();
    for (const std::string& s : kStrings)
        d->add_string_table(s);
    for (const Attr& a : kAttrs) {
        auto* e = d->add_attribute_table();
        if (a.key == 0)
            continue;
        e->set_key_strindex(a.key);
        e->mutable_value()->set_string_value(kStrings[a.value]);
    }
    for (const MappingDef& m : kMappings) {
        auto* e = d->add_mapping_table();
        e->set_memory_start(m.start);
        e->set_memory_limit(m.limit);
        e->set_file_offset(m.offset);
        e->set_filename_strindex(m.file);
        for (int a : m.attrs)
            e->add_attribute_indices(a);
    }
    for (const FunctionDef& f : kFunctions) {
        auto* e = d->add_function_table();
        e->set_name_strindex(f.name);
        e->set_system_name_strindex(f.name);
        e->set_filename_strindex(f.file);
        e->set_start_line(f.startLine);
    }
    for (const LocationDef& l : kLocations) {
        auto* e = d->add_location_table();
        e->set_mapping_index(l.mapping);
        e->set_address(l.address);
        for (const LineDef& line : l.lines) {
            auto* x = e->add_lines();
            x->set_function_index(line.function);
            x->set_line(line.line);
        }
        for (int a : l.attrs)
            e->add_attribute_indices(a);
    }
    for (const auto& s : kStacks) {
        auto* e = d->add_stack_table();
        for (int l : s)
            e->add_location_indices(l);
    }
    d->add_link_table();
    auto* link = d->add_link_table();
    link->set_trace_id(kTraceId);
    link->set_span_id(kSpanId);
}

template <typename Data, typename Profile> void fillProfile(Profile* p, const ProfileDef& def)
{
    p->mutable_sample_type()->set_type_strindex(def.type);
    p->mutable_sample_type()->set_unit_strindex(def.unit);
    if constexpr (Traits<Data>::version == 8)
        p->mutable_sample_type()->set_aggregation_temporality(1);
    p->set_time_unix_nano(T0);
    p->set_duration_nano(5000000000);
    p->mutable_period_type()->set_type_strindex(def.type);
    p->mutable_period_type()->set_unit_strindex(def.unit);
    p->set_period(10000000);
    p->set_profile_id(std::string(16, '\x42'));
    for (const SampleDef& s : def.samples) {
        auto* x = [&] {
            if constexpr (Traits<Data>::version == 8)
                return p->add_sample();
            else
                return p->add_samples();
        }();
        x->set_stack_index(s.stack);
        for (int64_t v : s.values)
            x->add_values(v);
        for (uint64_t t : s.timestamps)
            x->add_timestamps_unix_nano(t);
        for (int a : s.attrs)
            x->add_attribute_indices(a);
        x->set_link_index(s.link);
    }
}

template <typename Data>
void addResource(Data& data, const char* service, const char* exe, const std::vector<const ProfileDef*>& scopes)
{
    auto* rp = data.add_resource_profiles();
    auto* kv = rp->mutable_resource()->add_attributes();
    kv->set_key("service.name");
    kv->mutable_value()->set_string_value(service);
    kv = rp->mutable_resource()->add_attributes();
    kv->set_key("process.executable.name");
    kv->mutable_value()->set_string_value(exe);
    for (const ProfileDef* def : scopes) {
        auto* sp = rp->add_scope_profiles();
        sp->mutable_scope()->set_name("otlpgen");
        sp->mutable_scope()->set_version("1");
        fillProfile<Data>(sp->add_profiles(), *def);
    }
}

template <typename Data> Data scenario()
{
    Data data;
    fillDictionary(data);
    addResource(data, "checkout", "app", { &kCpu, &kCount });
    addResource(data, "inventory", "inv", { &kWall });
    return data;
}

// --- 1.7: locations referenced from Profile.location_indices, KeyValue attributes, varint
// timestamps, has_* flags on mappings.
symflame::otlptest::v1_7::ProfilesData scenario17()
{
    namespace v = symflame::otlptest::v1_7;
    v::ProfilesData data;
    auto* d = data.mutable_dictionary();
    for (const std::string& s : kStrings)
        d->add_string_table(s);
    for (const Attr& a : kAttrs) {
        auto* e = d->add_attribute_table();
        if (a.key == 0)
            continue;
        e->set_key(kStrings[a.key]);
        e->mutable_value()->set_string_value(kStrings[a.value]);
    }
    for (const MappingDef& m : kMappings) {
        auto* e = d->add_mapping_table();
        e->set_memory_start(m.start);
        e->set_memory_limit(m.limit);
        e->set_file_offset(m.offset);
        e->set_filename_strindex(m.file);
        for (int a : m.attrs)
            e->add_attribute_indices(a);
        e->set_has_functions(m.file == AppBin);
    }
    for (const FunctionDef& f : kFunctions) {
        auto* e = d->add_function_table();
        e->set_name_strindex(f.name);
        e->set_system_name_strindex(f.name);
        e->set_filename_strindex(f.file);
        e->set_start_line(f.startLine);
    }
    for (const LocationDef& l : kLocations) {
        auto* e = d->add_location_table();
        e->set_mapping_index(l.mapping);
        e->set_address(l.address);
        for (const LineDef& line : l.lines) {
            auto* x = e->add_line();
            x->set_function_index(line.function);
            x->set_line(line.line);
        }
        for (int a : l.attrs)
            e->add_attribute_indices(a);
    }
    d->add_link_table();
    auto* link = d->add_link_table();
    link->set_trace_id(kTraceId);
    link->set_span_id(kSpanId);

    const auto addProfile = [&](v::ScopeProfiles* sp, const ProfileDef& def) {
        auto* p = sp->add_profiles();
        p->mutable_sample_type()->set_type_strindex(def.type);
        p->mutable_sample_type()->set_unit_strindex(def.unit);
        p->set_time_nanos(T0);
        p->set_duration_nanos(5000000000);
        p->mutable_period_type()->set_type_strindex(def.type);
        p->mutable_period_type()->set_unit_strindex(def.unit);
        p->set_period(10000000);
        // Each stack once in location_indices, samples refer to slices of it.
        std::vector<int> start(kStacks.size(), -1);
        for (const SampleDef& s : def.samples) {
            if (start[s.stack] < 0) {
                start[s.stack] = p->location_indices_size();
                for (int l : kStacks[s.stack])
                    p->add_location_indices(l);
            }
            auto* x = p->add_sample();
            x->set_locations_start_index(start[s.stack]);
            x->set_locations_length(static_cast<int>(kStacks[s.stack].size()));
            for (int64_t val : s.values)
                x->add_values(val);
            for (uint64_t t : s.timestamps)
                x->add_timestamps_unix_nano(t);
            for (int a : s.attrs)
                x->add_attribute_indices(a);
            x->set_link_index(s.link);
        }
    };
    const auto addResource17 = [&](const char* service, const char* exe, const std::vector<const ProfileDef*>& scopes) {
        auto* rp = data.add_resource_profiles();
        auto* kv = rp->mutable_resource()->add_attributes();
        kv->set_key("service.name");
        kv->mutable_value()->set_string_value(service);
        kv = rp->mutable_resource()->add_attributes();
        kv->set_key("process.executable.name");
        kv->mutable_value()->set_string_value(exe);
        for (const ProfileDef* def : scopes) {
            auto* sp = rp->add_scope_profiles();
            sp->mutable_scope()->set_name("otlpgen");
            sp->mutable_scope()->set_version("1");
            addProfile(sp, *def);
        }
    };
    addResource17("checkout", "app", { &kCpu, &kCount });
    addResource17("inventory", "inv", { &kWall });
    return data;
}

// --- the cpu profile as pprof: each timestamp its own sample (pprof has none), values as is.
perftools::profiles::Profile cpuAsPprof()
{
    perftools::profiles::Profile p;
    for (const std::string& s : kStrings)
        p.add_string_table(s);
    auto* st = p.add_sample_type();
    st->set_type(Cpu);
    st->set_unit(Ns);
    p.mutable_period_type()->set_type(Cpu);
    p.mutable_period_type()->set_unit(Ns);
    p.set_period(10000000);
    p.set_time_nanos(static_cast<int64_t>(T0));
    p.set_duration_nanos(5000000000);
    for (size_t i = 1; i < kMappings.size(); ++i) {
        auto* m = p.add_mapping();
        m->set_id(i);
        m->set_memory_start(kMappings[i].start);
        m->set_memory_limit(kMappings[i].limit);
        m->set_file_offset(kMappings[i].offset);
        m->set_filename(kMappings[i].file);
        if (i == 1)
            m->set_build_id(GnuId);
    }
    for (size_t i = 1; i < kFunctions.size(); ++i) {
        auto* f = p.add_function();
        f->set_id(i);
        f->set_name(kFunctions[i].name);
        f->set_system_name(kFunctions[i].name);
        f->set_filename(kFunctions[i].file);
        f->set_start_line(kFunctions[i].startLine);
    }
    for (size_t i = 1; i < kLocations.size(); ++i) {
        auto* l = p.add_location();
        l->set_id(i);
        l->set_mapping_id(static_cast<uint64_t>(kLocations[i].mapping));
        l->set_address(kLocations[i].address);
        for (const LineDef& line : kLocations[i].lines) {
            auto* x = l->add_line();
            x->set_function_id(static_cast<uint64_t>(line.function));
            x->set_line(line.line);
        }
    }
    for (const SampleDef& s : kCpu.samples) {
        const size_t n = s.timestamps.empty() ? 1 : s.timestamps.size();
        for (size_t k = 0; k < n; ++k) {
            auto* x = p.add_sample();
            for (int l : kStacks[s.stack])
                x->add_location_id(static_cast<uint64_t>(l));
            int64_t v = 0;
            if (s.timestamps.empty())
                for (int64_t val : s.values)
                    v += val;
            else
                v = s.values.empty() ? 1 : s.values[k];
            x->add_value(v);
            for (int a : s.attrs) {
                auto* label = x->add_label();
                label->set_key(kAttrs[a].key);
                label->set_str(kAttrs[a].value);
            }
        }
    }
    return p;
}

bool write(const std::string& path, const std::string& bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
        std::fprintf(stderr, "otlpgen: cannot write %s\n", path.c_str());
        return false;
    }
    return true;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: otlpgen OUTDIR\n");
        return 64;
    }
    const std::string dir = argv[1];
    namespace v10 = symflame::otlptest::v1_10;
    const auto d10 = scenario<v10::ProfilesData>();
    v10::ExportProfilesServiceRequest request;
    request.ParseFromString(d10.SerializeAsString()); // the same fields, as the collector's request
    const bool ok = write(dir + "/scenario-v1.10.pb", d10.SerializeAsString())
        && write(dir + "/scenario-v1.10-request.pb", request.SerializeAsString())
        && write(dir + "/scenario-v1.9.pb", scenario<symflame::otlptest::v1_9::ProfilesData>().SerializeAsString())
        && write(dir + "/scenario-v1.8.pb", scenario<symflame::otlptest::v1_8::ProfilesData>().SerializeAsString())
        && write(dir + "/scenario-v1.7.pb", scenario17().SerializeAsString())
        && write(dir + "/scenario-cpu.pprof.pb", cpuAsPprof().SerializeAsString());
    return ok ? 0 : 1;
}
