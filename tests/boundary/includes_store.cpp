// Must NOT compile: a file built like the window (it links forkscope_engine_api only)
// reaching for the database. CTest `engine_api_boundary_store` expects the compiler to say
// the header is not there.
#include "store/Database.h"

int main()
{
    return 0;
}
