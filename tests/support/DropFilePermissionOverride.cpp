#include "DropFilePermissionOverride.h"

#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace forkscope::test {

namespace {
bool setEffective(bool dacEnabled)
{
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2]{};
    if (::syscall(SYS_capget, &header, data) != 0)
        return false;
    const unsigned bits = (1u << CAP_DAC_OVERRIDE) | (1u << CAP_DAC_READ_SEARCH);
    if (dacEnabled)
        data[0].effective |= (bits & data[0].permitted);
    else
        data[0].effective &= ~bits;
    return ::syscall(SYS_capset, &header, data) == 0;
}
} // namespace

DropFilePermissionOverride::DropFilePermissionOverride()
{
    if (::geteuid() == 0)
        m_active = setEffective(false);
}

DropFilePermissionOverride::~DropFilePermissionOverride()
{
    if (m_active)
        setEffective(true);
}

} // namespace forkscope::test
