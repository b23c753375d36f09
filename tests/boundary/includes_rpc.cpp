// Must NOT compile: a file built like the window (it links forkscope_engine_api only)
// reaching for the node. CTest `engine_api_boundary_rpc` expects the compiler to say the
// header is not there.
#include "rpc/JsonRpcClient.h"

int main()
{
    return 0;
}
