# Runs `firmware_example DEVICES | server_example` and checks what the server printed: every report
# accepted, none rejected or unreadable, one estimate line per item of the example block.
# cmake -DDEVICE=... -DSERVER=... -DDEVICES=n -P run_pipeline.cmake
execute_process(COMMAND ${DEVICE} ${DEVICES} COMMAND ${SERVER}
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULTS_VARIABLE results)
message("${out}${err}")
if(NOT results STREQUAL "0;0")
  message(FATAL_ERROR "pipeline exit codes: ${results}")
endif()
if(NOT out MATCHES "epsilon [0-9.]+, ${DEVICES} reports accepted\n")
  message(FATAL_ERROR "the server did not accept all ${DEVICES} reports")
endif()
if(NOT out MATCHES "\nrejected: 0, unreadable lines: 0\n")
  message(FATAL_ERROR "reports were rejected or unreadable")
endif()
string(REGEX MATCHALL "\n +[0-9]+ +-?[0-9]+\\.[0-9] +\\[ *-?[0-9]+\\.[0-9], *-?[0-9]+\\.[0-9]\\]" rows "${out}")
list(LENGTH rows n)
if(NOT n EQUAL 16)
  message(FATAL_ERROR "expected 16 estimate rows, got ${n}")
endif()
