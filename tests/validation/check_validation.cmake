# Runs `scaleout validate` on the published data set and checks the recorded
# thresholds (thresholds.cmake beside this file).
include("${CMAKE_CURRENT_LIST_DIR}/thresholds.cmake")
execute_process(
  COMMAND "${SCALEOUT}" validate data/validation/training.csv --format json
  WORKING_DIRECTORY "${ROOT}"
  OUTPUT_VARIABLE json
  ERROR_VARIABLE err
  RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "scaleout validate failed (${code}): ${err}")
endif()
string(JSON mape GET "${json}" summary by_metric peak_mem_gib mape)
string(JSON count GET "${json}" summary by_metric peak_mem_gib count)
string(JSON false_oom GET "${json}" summary false_oom)
message(STATUS "peak_mem_gib: ${count} rows, MAPE ${mape}; false out-of-memory verdicts: ${false_oom}")
if(count LESS 13)
  message(FATAL_ERROR "only ${count} of 13 peak_mem_gib rows were predicted")
endif()
if(mape GREATER MAX_PEAK_MEM_MAPE)
  message(FATAL_ERROR "peak_mem_gib MAPE ${mape} exceeds the recorded ${MAX_PEAK_MEM_MAPE}")
endif()
if(false_oom GREATER MAX_FALSE_OOM)
  message(FATAL_ERROR "${false_oom} published runs predicted out of memory")
endif()
