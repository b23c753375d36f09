#pragma once

#include <QList>
#include <QMap>
#include <QString>

namespace forkscope::bench {

// The figures of repeated runs, by label (which binary, which mode), summarised as
// min / median / max: on this shared 2-core machine one run says little, and the benches'
// comparisons alternate two builds run by run (bench/README.md).
class RunSeries
{
public:
    void add(const QString& label, const QString& figure, double value);
    // One line per label and figure: "label: figure min / median / max (n runs)". Nothing
    // for a label seen in a single run.
    void print(const char* unitFormat = "%.2f") const;

    static double median(QList<double> values);

private:
    QMap<QString, QMap<QString, QList<double>>> m_values; // label -> figure -> runs
    QMap<QString, QStringList> m_figureOrder;             // first-seen order per label
};

} // namespace forkscope::bench
