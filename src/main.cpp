#include "cli/cli.hpp"

int main(int argc, char** argv) { return scaleout::run_cli(argc, argv); }
