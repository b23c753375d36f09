#include "Count.h"

namespace forkscope::text {

QString count(qint64 n, const QString& singular, const QString& plural)
{
    return QStringLiteral("%1 %2").arg(n).arg(n == 1 ? singular : plural);
}

} // namespace forkscope::text
