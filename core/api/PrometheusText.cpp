#include "PrometheusText.h"

#include <cmath>

namespace forkscope::api {

QString PrometheusText::escapeLabel(const QString& v)
{
    QString out;
    for (QChar c : v) {
        if (c == QLatin1Char('\\'))
            out += QStringLiteral("\\\\");
        else if (c == QLatin1Char('"'))
            out += QStringLiteral("\\\"");
        else if (c == QLatin1Char('\n'))
            out += QStringLiteral("\\n");
        else
            out += c;
    }
    return out;
}

void PrometheusText::header(const QString& name, const QString& type, const QString& help)
{
    QString h = help;
    h.replace(QLatin1Char('\\'), QStringLiteral("\\\\"))
        .replace(QLatin1Char('\n'), QStringLiteral("\\n"));
    m_out += "# HELP " + name.toUtf8() + ' ' + h.toUtf8() + '\n';
    m_out += "# TYPE " + name.toUtf8() + ' ' + type.toUtf8() + '\n';
}

void PrometheusText::sample(const QString& name, const Labels& labels, double value)
{
    m_out += name.toUtf8();
    if (!labels.isEmpty()) {
        QStringList parts;
        for (const auto& [k, v] : labels)
            parts << k + QStringLiteral("=\"") + escapeLabel(v) + QLatin1Char('"');
        m_out += '{' + parts.join(QLatin1Char(',')).toUtf8() + '}';
    }
    QByteArray number;
    if (std::isinf(value))
        number = value > 0 ? "+Inf" : "-Inf";
    else if (std::isnan(value))
        number = "NaN";
    else if (value == std::floor(value) && std::fabs(value) < 9e15)
        number = QByteArray::number(qint64(value));
    else
        number = QByteArray::number(value, 'g', 17);
    m_out += ' ' + number + '\n';
}

void PrometheusText::gauge(const QString& name, const QString& help, double value,
                           const Labels& labels)
{
    header(name, QStringLiteral("gauge"), help);
    sample(name, labels, value);
}

void PrometheusText::counter(const QString& name, const QString& help, double value,
                             const Labels& labels)
{
    header(name, QStringLiteral("counter"), help);
    sample(name, labels, value);
}

void PrometheusText::family(const QString& name, const QString& type, const QString& help,
                            const QList<QPair<Labels, double>>& samples)
{
    header(name, type, help);
    for (const auto& [labels, value] : samples)
        sample(name, labels, value);
}

void PrometheusText::histogram(const QString& name, const QString& help,
                               const QList<double>& upperBounds, const QList<double>& observations)
{
    header(name, QStringLiteral("histogram"), help);
    double sum = 0;
    for (double o : observations)
        sum += o;
    for (double le : upperBounds) {
        qint64 n = 0;
        for (double o : observations)
            n += o <= le ? 1 : 0;
        sample(name + QStringLiteral("_bucket"), {{QStringLiteral("le"), QString::number(le)}},
               double(n));
    }
    sample(name + QStringLiteral("_bucket"), {{QStringLiteral("le"), QStringLiteral("+Inf")}},
           double(observations.size()));
    sample(name + QStringLiteral("_sum"), {}, sum);
    sample(name + QStringLiteral("_count"), {}, double(observations.size()));
}

} // namespace forkscope::api
