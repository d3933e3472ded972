# Runs `scaleout plan WORKLOAD --emit OUTDIR` and compares each launch file
# with tests/golden/launch/<file>. WORKLOAD is relative to ROOT. With
# -DUPDATE=ON the expected files are rewritten instead.
set(files slurm.sbatch torchrun.sh megatron.args deepspeed.json pytorchjob.yaml trainjob.yaml)
file(REMOVE_RECURSE "${OUTDIR}")
execute_process(
  COMMAND "${SCALEOUT}" plan "${WORKLOAD}" --threads 2 --emit "${OUTDIR}"
  WORKING_DIRECTORY "${ROOT}"
  OUTPUT_VARIABLE out
  ERROR_VARIABLE err
  RESULT_VARIABLE code)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "scaleout plan ${WORKLOAD} --emit exited ${code}:\n${err}")
endif()
set(expected_dir "${ROOT}/tests/golden/launch")
set(failed "")
foreach(f IN LISTS files)
  if(NOT EXISTS "${OUTDIR}/${f}")
    message(FATAL_ERROR "scaleout did not write ${OUTDIR}/${f}")
  endif()
  file(READ "${OUTDIR}/${f}" actual)
  if(UPDATE)
    file(WRITE "${expected_dir}/${f}" "${actual}")
    continue()
  endif()
  if(NOT EXISTS "${expected_dir}/${f}")
    message(FATAL_ERROR "missing ${expected_dir}/${f}; run scripts/update-golden.sh")
  endif()
  file(READ "${expected_dir}/${f}" expected)
  if(NOT actual STREQUAL expected)
    list(APPEND failed "${f}")
  endif()
endforeach()
if(failed)
  message(FATAL_ERROR "launch files differ from ${expected_dir}: ${failed} (diff with ${OUTDIR}; "
                      "scripts/update-golden.sh accepts the new files)")
endif()
