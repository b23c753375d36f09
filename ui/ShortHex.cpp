#include "ShortHex.h"

#include <cctype>

namespace forkscope::ui {

QString shortHex(const QString& value)
{
    if (value.size() <= 14 || !value.startsWith(QLatin1String("0x")))
        return value;
    for (qsizetype i = 2; i < value.size(); ++i)
        if (!std::isxdigit(static_cast<unsigned char>(value.at(i).toLatin1())))
            return value;
    return value.left(6) + QStringLiteral("\u2026") + value.right(4);
}

} // namespace forkscope::ui
