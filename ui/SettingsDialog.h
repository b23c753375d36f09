#pragma once

#include "config/AppSettings.h"

#include <QDialog>
#include <QHash>

class QFormLayout;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;

namespace forkscope::ui {

// Endpoints, contracts, ABI, start block, confirmations, batch size, max reorg depth, poll
// interval, ready ratio, webhook: validated as the user types, each error shown under its
// field, OK enabled only when everything is usable.
class SettingsDialog : public QDialog
{
    Q_OBJECT
public:
    explicit SettingsDialog(const config::AppSettings& initial, QWidget* parent = nullptr);

    config::AppSettings settings() const;
    bool isValid() const;
    // The error shown for a field ("endpoints", "contracts", "abi", "startBlock", ...).
    QString errorFor(const QString& field) const;
    QLineEdit* lineEdit(const QString& field) const { return m_lines.value(field); }
    QPlainTextEdit* textEdit(const QString& field) const { return m_texts.value(field); }
    QPushButton* okButton() const { return m_ok; }
    // What the running engine uses now, shown read-only above the fields: the managed lab's
    // own endpoint and contracts are nowhere in the saved settings.
    void setInUse(const QString& endpoint, const QStringList& contracts, const QString& database);
    QString inUseText() const;

private:
    void validate();
    void addRow(const QString& field, const QString& label, QWidget* editor);

    QHash<QString, QLineEdit*> m_lines;
    QHash<QString, QPlainTextEdit*> m_texts;
    QHash<QString, QLabel*> m_errors;
    QPushButton* m_ok = nullptr;
    QFormLayout* m_form = nullptr;
    QLabel* m_inUse = nullptr;
};

} // namespace forkscope::ui
