// The subcommands of ksweep. Each lives in its own <name>_command.cpp and is listed once in
// main.cpp's table.
#pragma once

namespace ksweep::cli {

int scan_command(int argc, char** argv);
int fix_command(int argc, char** argv);
int guest_command(int argc, char** argv);
int check_command(int argc, char** argv);
int series_command(int argc, char** argv);
int validate_command(int argc, char** argv);
int demo_command(int argc, char** argv);
int cache_command(int argc, char** argv);
int devices_command(int argc, char** argv);

} // namespace ksweep::cli
