#include "SettingsDialog.h"
#include "Palette.h"
#include "config/SettingsValidation.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace forkscope::ui {

SettingsDialog::SettingsDialog(const config::AppSettings& s, QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("Forkscope settings"));
    auto* layout = new QVBoxLayout(this);
    m_inUse = new QLabel(this);
    m_inUse->setObjectName(QStringLiteral("inUse"));
    m_inUse->setWordWrap(true);
    m_inUse->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_inUse->setStyleSheet(QStringLiteral("color: palette(mid);"));
    m_inUse->hide();
    layout->addWidget(m_inUse);
    m_form = new QFormLayout;
    layout->addLayout(m_form);

    const auto text = [this](const QString& field, const QString& label, const QString& value,
                             const QString& placeholder) {
        auto* e = new QPlainTextEdit(value, this);
        e->setPlaceholderText(placeholder);
        e->setMaximumHeight(70);
        m_texts.insert(field, e);
        addRow(field, label, e);
        connect(e, &QPlainTextEdit::textChanged, this, &SettingsDialog::validate);
    };
    const auto line = [this](const QString& field, const QString& label, const QString& value,
                             const QString& placeholder) {
        auto* e = new QLineEdit(value, this);
        e->setPlaceholderText(placeholder);
        m_lines.insert(field, e);
        addRow(field, label, e);
        connect(e, &QLineEdit::textChanged, this, &SettingsDialog::validate);
    };
    text(QStringLiteral("endpoints"), tr("Endpoints"), s.endpoints,
         tr("one JSON-RPC URL per line; empty: a managed anvil lab"));
    text(QStringLiteral("contracts"), tr("Contracts"), s.contracts, tr("one 0x address per line"));
    text(QStringLiteral("factories"), tr("Factories"), s.factories,
         tr("one per line: address, creation event signature, child argument; e.g. 0x5c69... "
            "PairCreated(address indexed token0, address indexed token1, address pair, uint256) "
            "pair"));
    {
        // The ABI file: typed, or chosen with Browse...
        auto* e = new QLineEdit(s.abiPath, this);
        e->setPlaceholderText(tr("optional"));
        m_lines.insert(QStringLiteral("abi"), e);
        auto* browse = new QPushButton(tr("Browse..."), this);
        browse->setObjectName(QStringLiteral("browseAbi"));
        connect(browse, &QPushButton::clicked, this, [this, e] {
            const QString path = QFileDialog::getOpenFileName(
                this, tr("ABI JSON file"), e->text(), tr("ABI JSON (*.json);;All files (*)"));
            if (!path.isEmpty())
                e->setText(path);
        });
        auto* row = new QWidget(this);
        auto* h = new QHBoxLayout(row);
        h->setContentsMargins(0, 0, 0, 0);
        h->addWidget(e, 1);
        h->addWidget(browse);
        addRow(QStringLiteral("abi"), tr("ABI JSON file"), row);
        connect(e, &QLineEdit::textChanged, this, &SettingsDialog::validate);
    }
    line(QStringLiteral("startBlock"), tr("Start block"), s.startBlock, {});
    line(QStringLiteral("confirmations"), tr("Confirmations"), s.confirmations, {});
    line(QStringLiteral("batchSize"), tr("Batch size"), s.batchSize, {});
    line(QStringLiteral("maxReorgDepth"), tr("Max reorg depth"), s.maxReorgDepth, {});
    line(QStringLiteral("pollMs"), tr("Poll interval (ms)"), s.pollMs, {});
    line(QStringLiteral("readyRatio"), tr("Ready ratio"), s.readyRatio, {});
    line(QStringLiteral("webhook"), tr("Webhook"), s.webhook, tr("optional http(s) URL"));
    line(QStringLiteral("environment"), tr("Environment"), s.environment,
         tr("for an endpoint; empty: \"default\". Another contract set needs another one"));

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_ok = buttons->button(QDialogButtonBox::Ok);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    validate();
}

void SettingsDialog::addRow(const QString& field, const QString& label, QWidget* editor)
{
    auto* box = new QWidget(this);
    auto* v = new QVBoxLayout(box);
    v->setContentsMargins(0, 0, 0, 0);
    v->addWidget(editor);
    auto* error = new QLabel(box);
    error->setObjectName(field + QStringLiteral("Error"));
    error->setStyleSheet(
        QStringLiteral("color: %1;").arg(Palette::screen(Palette::Tone::Bad).name()));
    error->setWordWrap(true);
    // An error appearing must not push the fields below it from under the cursor: its line
    // is kept while it is hidden.
    QSizePolicy keep = error->sizePolicy();
    keep.setRetainSizeWhenHidden(true);
    error->setSizePolicy(keep);
    error->hide();
    v->addWidget(error);
    m_errors.insert(field, error);
    m_form->addRow(label, box);
}

config::AppSettings SettingsDialog::settings() const
{
    config::AppSettings s;
    s.endpoints = m_texts.value(QStringLiteral("endpoints"))->toPlainText();
    s.contracts = m_texts.value(QStringLiteral("contracts"))->toPlainText();
    s.factories = m_texts.value(QStringLiteral("factories"))->toPlainText();
    s.abiPath = m_lines.value(QStringLiteral("abi"))->text();
    s.startBlock = m_lines.value(QStringLiteral("startBlock"))->text();
    s.confirmations = m_lines.value(QStringLiteral("confirmations"))->text();
    s.batchSize = m_lines.value(QStringLiteral("batchSize"))->text();
    s.maxReorgDepth = m_lines.value(QStringLiteral("maxReorgDepth"))->text();
    s.pollMs = m_lines.value(QStringLiteral("pollMs"))->text();
    s.readyRatio = m_lines.value(QStringLiteral("readyRatio"))->text();
    s.webhook = m_lines.value(QStringLiteral("webhook"))->text();
    s.environment = m_lines.value(QStringLiteral("environment"))->text();
    return s;
}

void SettingsDialog::validate()
{
    using namespace config;
    const AppSettings s = settings();
    QHash<QString, std::optional<QString>> errors;
    for (const QString& e : s.endpointList())
        if (!errors.value(QStringLiteral("endpoints")))
            errors[QStringLiteral("endpoints")] = validateEndpoint(e);
    for (const QString& c : s.contractList())
        if (!errors.value(QStringLiteral("contracts")))
            errors[QStringLiteral("contracts")] = validateAddress(c);
    for (const QString& f : s.factoryList())
        if (!errors.value(QStringLiteral("factories")))
            errors[QStringLiteral("factories")] = validateFactory(f);
    if (!s.endpointList().isEmpty() && s.contractList().isEmpty() && s.factoryList().isEmpty())
        errors[QStringLiteral("contracts")] =
            tr("contracts: an external endpoint needs at least one contract or factory");
    errors[QStringLiteral("abi")] = validateAbiFile(s.abiPath);
    errors[QStringLiteral("startBlock")] =
        validateWholeNumber(s.startBlock, tr("start block"), 0, quint64(1) << 62);
    errors[QStringLiteral("confirmations")] =
        validateWholeNumber(s.confirmations, tr("confirmations"), 0, 10000);
    errors[QStringLiteral("batchSize")] =
        validateWholeNumber(s.batchSize, tr("batch size"), 1, 10000);
    errors[QStringLiteral("maxReorgDepth")] =
        validateWholeNumber(s.maxReorgDepth, tr("max reorg depth"), 1, 100000);
    errors[QStringLiteral("pollMs")] =
        validateWholeNumber(s.pollMs, tr("poll interval"), 10, 3600000);
    errors[QStringLiteral("readyRatio")] = validateRatio(s.readyRatio);
    if (!s.webhook.trimmed().isEmpty())
        if (const auto e = validateEndpoint(s.webhook))
            errors[QStringLiteral("webhook")] = tr("webhook: ") + *e;
    if (!s.environment.trimmed().isEmpty()) {
        errors[QStringLiteral("environment")] =
            s.endpointList().isEmpty()
                ? std::optional<QString>(tr("environment: only for an external endpoint (the "
                                            "managed lab opens a new one at each launch)"))
                : validateEnvironmentId(s.environment);
    }
    bool ok = true;
    for (auto it = m_errors.begin(); it != m_errors.end(); ++it) {
        const auto e = errors.value(it.key());
        it.value()->setText(e.value_or(QString()));
        it.value()->setVisible(e.has_value());
        ok = ok && !e;
    }
    if (m_ok)
        m_ok->setEnabled(ok);
}

void SettingsDialog::setInUse(const QString& endpoint, const QStringList& contracts,
                              const QString& database)
{
    m_inUse->setText(
        tr("In use now (read-only): node %1; contracts %2; database %3")
            .arg(endpoint.isEmpty() ? tr("not known yet") : endpoint,
                 contracts.isEmpty() ? tr("none") : contracts.join(QStringLiteral(", ")),
                 database.isEmpty() ? tr("none") : database));
    m_inUse->show();
}

QString SettingsDialog::inUseText() const
{
    return m_inUse->isHidden() ? QString() : m_inUse->text();
}

bool SettingsDialog::isValid() const
{
    return m_ok && m_ok->isEnabled();
}

QString SettingsDialog::errorFor(const QString& field) const
{
    const QLabel* l = m_errors.value(field);
    return l && !l->isHidden() ? l->text() : QString();
}

} // namespace forkscope::ui
