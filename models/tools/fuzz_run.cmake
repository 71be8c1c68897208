# Runs a libFuzzer target for a bounded number of iterations (ctest fuzz.*).
#   cmake -DFUZZER=exe -DWORK=dir -DSEEDS=dir -DRUNS=N -P fuzz_run.cmake
# Prints seed=N; PILFER_SEED=N repeats a run. New inputs go to WORK (build tree), never to
# the seed corpus in the source tree.
if(DEFINED ENV{PILFER_SEED} AND NOT "$ENV{PILFER_SEED}" STREQUAL "")
  set(seed "$ENV{PILFER_SEED}")
else()
  string(RANDOM LENGTH 9 ALPHABET 0123456789 seed)
  string(REGEX REPLACE "^0+" "" seed "${seed}")
  if(seed STREQUAL "")
    set(seed 1)
  endif()
endif()
message("seed=${seed}")
file(MAKE_DIRECTORY "${WORK}")
execute_process(COMMAND "${FUZZER}" -runs=${RUNS} -seed=${seed} -max_len=4096 -timeout=10
                        -rss_limit_mb=2048 "${WORK}" "${SEEDS}"
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fuzzer failed (exit ${rc}), seed=${seed}; replay with PILFER_SEED=${seed}")
endif()
