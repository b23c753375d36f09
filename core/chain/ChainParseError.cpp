#include "ChainParseError.h"

namespace forkscope::chain {

namespace {
QString shortened(const QString& v)
{
    // A malicious or broken node can send megabytes; keep messages readable.
    constexpr int kMax = 80;
    return v.size() <= kMax ? v : v.left(kMax) + QStringLiteral("...(%1 chars)").arg(v.size());
}
} // namespace

ChainParseError::ChainParseError(const QString& field, const QString& value, const QString& reason)
    : std::runtime_error(QStringLiteral("field \"%1\": %2, got %3")
                             .arg(field, reason, shortened(value))
                             .toStdString()),
      m_field(field), m_value(value), m_reason(reason)
{
}

} // namespace forkscope::chain
