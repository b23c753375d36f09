#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>

namespace forkscope::api {

// Writes the Prometheus text exposition format (version 0.0.4): one HELP and TYPE line per
// family, label values escaped, histograms with cumulative buckets, +Inf, _sum and _count.
class PrometheusText
{
public:
    using Labels = QList<QPair<QString, QString>>;

    void gauge(const QString& name, const QString& help, double value, const Labels& labels = {});
    void counter(const QString& name, const QString& help, double value, const Labels& labels = {});
    // Several samples of one family (e.g. one per node or per reason).
    void family(const QString& name, const QString& type, const QString& help,
                const QList<QPair<Labels, double>>& samples);
    void histogram(const QString& name, const QString& help, const QList<double>& upperBounds,
                   const QList<double>& observations);

    QByteArray text() const { return m_out; }
    static QString escapeLabel(const QString& v);

private:
    void header(const QString& name, const QString& type, const QString& help);
    void sample(const QString& name, const Labels& labels, double value);
    QByteArray m_out;
};

} // namespace forkscope::api
