#include "ReportExporter.h"
#include "EnvironmentWindow.h"
#include "ReportPdfWriter.h"
#include "engine/DisplayState.h"
#include "engine/EngineApi.h"

#include <QFileInfo>
#include <QRegularExpression>
#include <QSaveFile>

#include <stdexcept>

namespace forkscope::ui {

ReportExporter::ReportExporter(engine::EngineApi* host, QObject* parent)
    : QObject(parent), m_host(host)
{
    connect(host, &engine::EngineApi::reportAvailable, this, &ReportExporter::applyReport);
    // A live export says what the window said (the one state model, DisplayState).
    connect(host, &engine::EngineApi::statusAvailable, this, [this](const engine::EngineStatus& s) {
        m_appState = engine::displayState(s).text();
        m_appStateEnvironment = s.environmentId;
    });
    connect(host, &engine::EngineApi::reportFailed, this, &ReportExporter::applyFailure);
}

namespace {
// The formats an export writes, by suffix.
const QStringList& exportFormats()
{
    static const QStringList formats{QStringLiteral("json"), QStringLiteral("csv"),
                                     QStringLiteral("pdf")};
    return formats;
}
} // namespace

QString ReportExporter::withFormatSuffix(const QString& path, const QString& selectedFilter)
{
    const QStringList& formats = exportFormats();
    if (formats.contains(QFileInfo(path).suffix().toLower()))
        return path;
    const QString ext = QRegularExpression(QStringLiteral("\\*\\.(\\w+)"))
                            .match(selectedFilter)
                            .captured(1)
                            .toLower();
    return formats.contains(ext) ? path + QLatin1Char('.') + ext : path;
}

void ReportExporter::exportReport(const QString& path, const QString& environmentId)
{
    const QString format = QFileInfo(path).suffix().toLower();
    if (!exportFormats().contains(format)) {
        const QString msg = tr("export: %1 does not end in .json, .csv or .pdf").arg(path);
        emit logMessage(QStringLiteral("error"), msg);
        emit exportFinished(path, false, msg);
        return;
    }
    emit logMessage(
        QStringLiteral("info"),
        tr("export: building the report, re-verifying checkpoints against the node..."));
    if (m_host)
        m_jobs.insert(m_host->requestReport(environmentId, true), {path, environmentId, {}});
}

void ReportExporter::requestFor(EnvironmentWindow* window)
{
    if (m_host && window)
        m_jobs.insert(m_host->requestReport(window->environmentId(), true), {{}, {}, window});
}

void ReportExporter::applyReport(quint64 ticket, const report::CheckpointReport& r)
{
    if (!m_jobs.contains(ticket))
        return; // not ours, or no longer awaited
    const Job job = m_jobs.take(ticket);
    if (job.exportPath.isEmpty()) {
        if (job.window)
            job.window->applyReport(r);
        return;
    }
    report::CheckpointReport exported = r;
    if (job.environmentId.isEmpty() && r.environment.id == m_appStateEnvironment)
        exported.appState = m_appState;
    try {
        write(job.exportPath, exported);
    } catch (const std::exception& e) {
        const QString msg = tr("export failed: %1").arg(QString::fromUtf8(e.what()));
        emit logMessage(QStringLiteral("error"), msg);
        emit exportFinished(job.exportPath, false, msg);
        return;
    }
    QStringList statuses;
    for (const auto& c : r.checkpoints)
        statuses << tr("checkpoint %1 %2")
                        .arg(c.blockNumber)
                        .arg(report::statusName(c.verification.status));
    const QString msg =
        tr("exported %1 (%2; %3 reorgs)")
            .arg(job.exportPath,
                 statuses.isEmpty() ? tr("nothing indexed") : statuses.join(QStringLiteral(", ")))
            .arg(r.counts.reorgs);
    emit logMessage(QStringLiteral("info"), msg);
    emit exportFinished(job.exportPath, true, msg);
}

void ReportExporter::write(const QString& path, const report::CheckpointReport& r)
{
    const QString format = QFileInfo(path).suffix().toLower();
    if (format == QLatin1String("pdf")) {
        ReportPdfWriter::write(r, path);
        return;
    }
    QSaveFile f(path);
    const QByteArray bytes = format == QLatin1String("json") ? r.toJson() : r.toCsv();
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit())
        throw std::runtime_error(
            tr("cannot write %1: %2").arg(path, f.errorString()).toStdString());
}

void ReportExporter::applyFailure(quint64 ticket, const QString& error)
{
    if (!m_jobs.contains(ticket))
        return; // not ours, or no longer awaited
    const Job job = m_jobs.take(ticket);
    const QString msg = tr("report failed: %1").arg(error);
    emit logMessage(QStringLiteral("error"), msg);
    if (!job.exportPath.isEmpty())
        emit exportFinished(job.exportPath, false, msg);
    else if (job.window)
        job.window->setWindowTitle(job.window->windowTitle() + tr(" - ") + msg);
}

} // namespace forkscope::ui
