#pragma once

namespace forkscope::test {

// Root ignores file permissions (CAP_DAC_OVERRIDE), and CI runs as root. To test what a
// user sees with a read-only file, drop those capabilities from the effective set for
// the lifetime of this object (they stay permitted, so they are restored afterwards).
// Does nothing for a non-root user, who obeys permissions anyway.
class DropFilePermissionOverride
{
public:
    DropFilePermissionOverride();
    ~DropFilePermissionOverride();
    bool active() const { return m_active; }

private:
    bool m_active = false;
};

} // namespace forkscope::test
