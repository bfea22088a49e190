# Fails if a firmware image defines or references heap or exception symbols, then prints its size.
# Called after linking with -DNM=... -DSIZE=... -DIMAGE=...
execute_process(COMMAND ${NM} ${IMAGE} OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${IMAGE}")
endif()
# C heap (and newlib's reentrant variants), C++ operator new/delete in every mangled form
# (_Znw*, _Zna*, _Zdl*, _Zda*), and the exception runtime.
set(forbidden "(malloc|free|realloc|calloc|_malloc_r|_free_r|_realloc_r|_calloc_r|_Znw[a-zA-Z0-9_]*|_Zna[a-zA-Z0-9_]*|_Zdl[a-zA-Z0-9_]*|_Zda[a-zA-Z0-9_]*|__cxa_throw|__cxa_allocate_exception|__cxa_begin_catch)")
string(REGEX MATCHALL "[ \t][A-Za-z][ \t]${forbidden}\n" hits "${symbols}")
if(hits)
  string(REPLACE "\n" "" hits "${hits}")
  message(FATAL_ERROR "firmware image ${IMAGE} uses the heap or exceptions:${hits}")
endif()
execute_process(COMMAND ${SIZE} ${IMAGE} OUTPUT_VARIABLE size_report)
message(STATUS "firmware symbol scan clean (no heap, no exceptions)")
message(STATUS "${SIZE} ${IMAGE}:\n${size_report}")
