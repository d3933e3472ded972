# Runs one golden case: CASE is a .cmd file whose first line holds the
# arguments to scaleout (paths relative to ROOT). The transcript
# "$ scaleout ARGS", standard output, standard error and "[exit N]" must equal
# the .out file beside it. With -DUPDATE=ON the .out file is rewritten.
file(STRINGS "${CASE}" args LIMIT_COUNT 1)
separate_arguments(arg_list UNIX_COMMAND "${args}")
execute_process(
  COMMAND "${SCALEOUT}" ${arg_list}
  WORKING_DIRECTORY "${ROOT}"
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err
  RESULT_VARIABLE code)
set(actual "$ scaleout ${args}\n${out}${err}[exit ${code}]\n")
# Wall-clock figures vary from run to run: mask them.
string(REGEX REPLACE "evaluations in [0-9.]+ s" "evaluations in <seconds> s" actual "${actual}")
string(REGEX REPLACE "\"seconds\": [0-9.e+-]+" "\"seconds\": \"<seconds>\"" actual "${actual}")
string(REGEX REPLACE "\\.cmd$" ".out" expected_file "${CASE}")
if(UPDATE)
  file(WRITE "${expected_file}" "${actual}")
  return()
endif()
if(NOT EXISTS "${expected_file}")
  message(FATAL_ERROR "missing ${expected_file}; run scripts/update-golden.sh")
endif()
file(READ "${expected_file}" expected)
if(NOT actual STREQUAL expected)
  file(WRITE "${expected_file}.actual" "${actual}")
  message(FATAL_ERROR "output differs from ${expected_file}; see ${expected_file}.actual "
                      "(diff the two; scripts/update-golden.sh accepts the new output)")
endif()
