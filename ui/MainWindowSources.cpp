#include "MainWindow.h"
#include "contracts/AddSourceDialog.h"
#include "engine/EngineApi.h"

#include <QMessageBox>
#include <QRegularExpression>

// The window's "Add contract..." and "Add factory..." (the Contracts tab's buttons).
namespace forkscope::ui {

using engine::EngineApi;

namespace {

// The flags as a shell reads them back: a signature's spaces and parentheses quoted.
QString shellWords(const QStringList& words)
{
    static const QRegularExpression kPlain(QStringLiteral("^[A-Za-z0-9_.:/=-]+$"));
    QStringList out;
    for (const QString& w : words)
        out << (kPlain.match(w).hasMatch() ? w : QLatin1Char('\'') + w + QLatin1Char('\''));
    return out.join(QLatin1Char(' '));
}

} // namespace

void MainWindow::addSource(engine::SourceSpec::Kind kind)
{
    auto* dialog = new AddSourceDialog(
        kind, [this](const QString& address) { return m_host->requestCodeCheck(address); }, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(m_host, &EngineApi::codeChecked, dialog, &AddSourceDialog::applyCodeCheck);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const engine::SourceSpec spec = dialog->spec();
        if (spec.kind == engine::SourceSpec::Kind::Contract) {
            // The engine backfills it next to the head; the Contracts tab shows its progress
            // and the log says when it joins.
            m_host->addSource(spec.normalizedAddress(), std::nullopt);
            return;
        }
        // A factory is checked, and nothing written: a factory joins a running environment
        // only with a backfill of its children's history, which this version does not have.
        auto* box = new QMessageBox(
            QMessageBox::Information, tr("Factory checked, not added"),
            tr("Factory %1 is checked: it has code on the node, and its creation event names "
               "the child's address.\n\nNothing was added to the running environment: a "
               "factory cannot join an indexed environment yet (a plain contract can). To "
               "index it now, start a new environment from the command line:\n\nforkscope "
               "index --env NEW ... %2")
                .arg(spec.address, shellWords(spec.indexArguments())),
            QMessageBox::Ok, this);
        box->setObjectName(QStringLiteral("sourceNotAdded"));
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->setTextInteractionFlags(Qt::TextSelectableByMouse);
        box->open();
    });
    dialog->open();
}

} // namespace forkscope::ui
