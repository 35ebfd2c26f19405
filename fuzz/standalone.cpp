// The driver of a fuzz harness built without libFuzzer: runs LLVMFuzzerTestOneInput once on each
// file named on the command line (a directory: on each file in it, recursively), so that the
// regression inputs and seeds run as ordinary tests in every build. Fails when it ran nothing.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv)
{
    size_t ran = 0;
    const auto runFile = [&](const std::filesystem::path& p) {
        std::ifstream f(p, std::ios::binary);
        const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
        ++ran;
    };
    for (int i = 1; i < argc; ++i) {
        const std::filesystem::path p(argv[i]);
        std::error_code ec;
        if (std::filesystem::is_directory(p, ec)) {
            for (const auto& e : std::filesystem::recursive_directory_iterator(p, ec))
                if (e.is_regular_file())
                    runFile(e.path());
        } else if (std::filesystem::is_regular_file(p, ec)) {
            runFile(p);
        } else {
            std::fprintf(stderr, "%s: no such file or directory\n", argv[i]);
            return 2;
        }
    }
    std::printf("%zu inputs run, no crash\n", ran);
    return ran > 0 ? 0 : 1;
}
