#include "MainWindow.h"
#include "config/AppSettings.h"
#include "contracts/AddSourceDialog.h"
#include "engine/EngineApi.h"

#include <QSettings>

// The window's "Add contract..." and "Add factory..." (the Contracts tab's buttons).
namespace forkscope::ui {

using engine::EngineApi;

void MainWindow::addSource(engine::SourceSpec::Kind kind)
{
    auto* dialog = new AddSourceDialog(
        kind, [this](const QString& address) { return m_host->requestCodeCheck(address); }, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(m_host, &EngineApi::codeChecked, dialog, &AddSourceDialog::applyCodeCheck);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const engine::SourceSpec spec = dialog->spec();
        // The engine backfills it (a factory with its children) next to the head; the
        // Contracts tab shows its progress and the log says when it joins.
        if (spec.kind == engine::SourceSpec::Kind::Contract)
            m_host->addSource(spec.normalizedAddress(), std::nullopt);
        else
            m_host->addFactory(spec, std::nullopt);
        rememberSource(spec);
    });
    dialog->open();
}

// An environment refuses a run that leaves one of its sources out, so a source added to an
// environment on the user's nodes is saved in Settings too: the next start (and Engine >
// Restart) name it. The managed lab starts a new environment each time: nothing to keep.
void MainWindow::rememberSource(const engine::SourceSpec& spec)
{
    if (m_lastStatus.managedDevnet)
        return;
    QSettings store;
    config::AppSettings s = config::AppSettings::load(store);
    const QString address = spec.normalizedAddress();
    const auto append = [](QString& lines, const QString& line) {
        lines = lines.trimmed().isEmpty() ? line : lines.trimmed() + QLatin1Char('\n') + line;
    };
    if (spec.kind == engine::SourceSpec::Kind::Contract) {
        if (s.contractList().contains(address, Qt::CaseInsensitive))
            return;
        append(s.contracts, address);
    } else {
        for (const QString& line : s.factoryList())
            if (line.trimmed().startsWith(address, Qt::CaseInsensitive))
                return;
        append(s.factories, QStringLiteral("%1 %2 %3")
                                .arg(address, spec.event.simplified(), spec.childArg.trimmed()));
    }
    s.save(store);
    appendLog(QStringLiteral("info"),
              tr("%1 saved in Settings: the next start indexes it too").arg(address));
    emit settingsSaved(s);
}

} // namespace forkscope::ui
