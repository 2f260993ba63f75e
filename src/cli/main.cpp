// ksweep: find, fix, send and prove tree-wide sleep fixes in a Linux kernel tree.
#include "cli/commands.h"

#include <cstdio>
#include <cstring>

namespace {

struct Subcommand {
    const char* name;
    int (*run)(int argc, char** argv);
    const char* summary;
};

constexpr Subcommand kSubcommands[] = {
    {"scan", ksweep::cli::scan_command, "find small msleep() calls, through macros and enums"},
    {"fix", ksweep::cli::fix_command, "rewrite them into usleep_range() in kernel style"},
    {"guest", ksweep::cli::guest_command,
     "boot a driver in QEMU with its emulated device, time it"},
    {"devices", ksweep::cli::devices_command, "the devices L4 boots, as the README's table"},
    {"check", ksweep::cli::check_command, "CI gate: small msleep() calls a patch adds"},
    {"series", ksweep::cli::series_command, "commit the fix on a new branch, write a patch series"},
    {"validate", ksweep::cli::validate_command, "prove a series: git am, checkpatch, builds, QEMU"},
    {"demo", ksweep::cli::demo_command, "the whole job on Debian's 6.1 tpm drivers, end to end"},
    {"cache", ksweep::cli::cache_command,
     "list ksweep's cache (builds, guests, repositories), prune it"},
};

void print_usage(FILE* out) {
    std::fprintf(out, "usage: ksweep <command> [options] ...\n\ncommands:\n");
    for (const auto& s : kSubcommands)
        std::fprintf(out, "  %-10s %s\n", s.name, s.summary);
    std::fprintf(out, "\n'ksweep <command> --help' tells more; 'ksweep --version' the version.\n");
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        print_usage(stderr);
        return 2;
    }
    if (!std::strcmp(argv[1], "--version")) {
        std::printf("ksweep %s\n", KSWEEP_VERSION);
        return 0;
    }
    if (!std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
        print_usage(stdout);
        return 0;
    }
    for (const auto& s : kSubcommands)
        if (!std::strcmp(argv[1], s.name))
            return s.run(argc - 1, argv + 1);
    std::fprintf(stderr, "ksweep: unknown command '%s'\n\n", argv[1]);
    print_usage(stderr);
    return 2;
}
