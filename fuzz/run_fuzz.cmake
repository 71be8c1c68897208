# One bounded libFuzzer run (every fuzz.* ctest: fuzz/ and models/tools/):
#   cmake -DTARGET=exe -DRUNS=N -DCORPUS=<in-tree seeds> -DWORK=<dir> -DMAX_LEN=bytes [-DTIMEOUT=seconds] -P run_fuzz.cmake
# TIMEOUT: libFuzzer's per-input limit (-timeout=N; its own default when not given).
# Prints seed=N (PILFER_SEED=N replays the same mutations); new corpus entries and any crash input are
# written under WORK, never into the source tree. Fails when the target reports a crash, a leak, a sanitizer
# error or a broken property.
if(DEFINED ENV{PILFER_SEED} AND NOT "$ENV{PILFER_SEED}" STREQUAL "")
  set(seed "$ENV{PILFER_SEED}")
  if(NOT seed MATCHES "^[0-9]+$")
    message(FATAL_ERROR "PILFER_SEED must be an unsigned decimal number, got '${seed}'")
  endif()
else()
  string(RANDOM LENGTH 9 ALPHABET 0123456789 seed)
  string(REGEX REPLACE "^0+" "" seed "${seed}")
  if(seed STREQUAL "")
    set(seed 1)
  endif()
endif()
message("seed=${seed}")
set(per_input_limit)
if(DEFINED TIMEOUT)
  set(per_input_limit -timeout=${TIMEOUT})
endif()
file(MAKE_DIRECTORY ${WORK}/corpus)
execute_process(COMMAND ${TARGET} -seed=${seed} -runs=${RUNS} -max_len=${MAX_LEN} ${per_input_limit}
                        -artifact_prefix=${WORK}/ -print_final_stats=1 ${WORK}/corpus ${CORPUS}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REGEX MATCH "stat::number_of_executed_units: *[0-9]+" units "${err}")
string(REGEX MATCH "Done [0-9]+ runs in [0-9]+ second" done "${err}")
message("${units}; ${done}")
if(NOT rc EQUAL 0)
  message("${err}")
  message(FATAL_ERROR "fuzz target failed (exit ${rc}, seed=${seed}; replay with PILFER_SEED=${seed}); "
                      "the input is saved under ${WORK}/")
endif()
