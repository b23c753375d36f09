#include "RunSeries.h"

#include <algorithm>
#include <cstdio>

namespace forkscope::bench {

void RunSeries::add(const QString& label, const QString& figure, double value)
{
    QList<double>& runs = m_values[label][figure];
    if (runs.isEmpty())
        m_figureOrder[label].append(figure);
    runs.append(value);
}

double RunSeries::median(QList<double> values)
{
    if (values.isEmpty())
        return 0;
    std::sort(values.begin(), values.end());
    const qsizetype mid = values.size() / 2;
    return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

void RunSeries::print(const char* unitFormat) const
{
    for (auto label = m_values.cbegin(); label != m_values.cend(); ++label) {
        for (const QString& figure : m_figureOrder.value(label.key())) {
            const QList<double>& runs = label.value().value(figure);
            if (runs.size() < 2)
                continue;
            const auto [lo, hi] = std::minmax_element(runs.cbegin(), runs.cend());
            const QByteArray line =
                QStringLiteral("%1: %2 %3 / %4 / %5 (min / median / max of %6 runs)\n")
                    .arg(label.key(), figure, QString::asprintf(unitFormat, *lo),
                         QString::asprintf(unitFormat, median(runs)),
                         QString::asprintf(unitFormat, *hi))
                    .arg(runs.size())
                    .toUtf8();
            std::fputs(line.constData(), stdout);
        }
    }
}

} // namespace forkscope::bench
