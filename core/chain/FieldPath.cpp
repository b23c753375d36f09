#include "FieldPath.h"

namespace forkscope::chain {

QString FieldPath::toString() const
{
    if (!m_parent)
        return *m_root;
    QString s = m_parent->toString();
    if (m_member)
        s += QLatin1Char('.') + QLatin1String(m_member);
    else
        s += QLatin1Char('[') + QString::number(m_index) + QLatin1Char(']');
    return s;
}

} // namespace forkscope::chain
