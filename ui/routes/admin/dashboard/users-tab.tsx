import { useState } from "react";
import { applyUserAction, sendPasswordResetLink, useAdminUsers, type AdminUser, type UserAction } from "../../../api/admin";
import { useConfirm } from "../../../components/confirm-dialog";
import { Pagination } from "../../../components/pagination";
import { Table } from "../../../components/table";
import { Alert, Button, Input, Modal } from "../../../components/ui";
import { auth } from "../../../lib/auth";
import { toast } from "../../../lib/toast";
import { copyText, failed, PAGE_SIZE } from "./shared";
import { accountTime } from "../../../lib/format";

/** Users: search, disable and enable, the administrator role, 2FA reset, marking verified, password reset links. */
export function UsersTab() {
  const me = auth.value.user!;
  const [search, setSearch] = useState("");
  const [query, setQuery] = useState("");
  const [page, setPage] = useState(1);
  const list = useAdminUsers({ search: query, page, pageSize: PAGE_SIZE });
  const { ask, dialog } = useConfirm();

  const act = async (
    u: AdminUser,
    action: UserAction,
    question?: { title: string; message: string; confirmLabel: string; danger?: boolean },
  ) => {
    if (question && !(await ask(question))) return;
    try {
      await applyUserAction(u.id, action);
      toast({ title: "User updated", description: `${u.email}: ${action.replace("-", " ")} done.` });
      void list.reload();
    } catch (err) {
      failed(err, "Failed to update the user");
    }
  };

  // Without SMTP the server answers with the link itself, for the administrator to pass on.
  const [resetLink, setResetLink] = useState<{ email: string; link: string; message: string } | null>(null);
  const sendReset = async (u: AdminUser) => {
    const ok = await ask({
      title: "Send reset link",
      message: `Send ${u.email} a link to choose a new password?`,
      confirmLabel: "Send link",
      danger: false,
    });
    if (!ok) return;
    try {
      const answer = await sendPasswordResetLink(u.id);
      if (answer.data.link) setResetLink({ email: u.email, link: answer.data.link, message: answer.message });
      else toast({ title: "Reset link sent", description: answer.message });
    } catch (err) {
      failed(err, "Failed to start the password reset");
    }
  };

  return (
    <div className="space-y-3">
      <form
        className="flex gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          setPage(1);
          setQuery(search.trim());
        }}
      >
        <Input
          aria-label="Search users"
          placeholder="Search by email or name"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
        />
        <Button type="submit">Search</Button>
      </form>
      {list.error && <Alert>{list.error.message}</Alert>}
      {list.loading && !list.data ? (
        <p className="text-slate-500">Loading users...</p>
      ) : (
        <>
          <Table head={["User", "Role", "Status", "Plan", "2FA", "Joined", "Actions"]} label="Users">
            {list.data?.data.map((u) => (
              <tr key={u.id} data-testid="admin-user-row">
                <td className="px-2 py-2">
                  <p className="font-medium">{u.email}</p>
                  <p className="text-xs text-slate-500">{[u.firstName, u.lastName].filter(Boolean).join(" ")}</p>
                </td>
                <td className="px-2 py-2">{u.role === "admin" ? "Admin" : "User"}</td>
                <td className="px-2 py-2">
                  {u.disabled ? <span className="text-red-700">Disabled</span> : u.emailVerified ? "Active" : "Unverified"}
                </td>
                <td className="px-2 py-2">{u.plan ? `${u.plan.name}${u.plan.source === "trial" ? " (trial)" : ""}` : "None"}</td>
                <td className="px-2 py-2">{u.twoFactorEnabled ? "On" : "Off"}</td>
                <td className="px-2 py-2">{accountTime(u.createdAt, { date: "only" })}</td>
                <td className="space-x-1 whitespace-nowrap px-2 py-2">
                  {u.id !== me.id &&
                    (u.disabled ? (
                      <Button variant="secondary" onClick={() => act(u, "enable")}>
                        Enable
                      </Button>
                    ) : (
                      <Button
                        variant="danger"
                        onClick={() =>
                          act(u, "disable", {
                            title: "Disable user",
                            message: `Disable ${u.email}? They are signed out everywhere.`,
                            confirmLabel: "Disable",
                          })
                        }
                      >
                        Disable
                      </Button>
                    ))}
                  {u.role === "user" ? (
                    <Button
                      variant="secondary"
                      onClick={() =>
                        act(u, "make-admin", {
                          title: "Make administrator",
                          message: `Make ${u.email} an administrator?`,
                          confirmLabel: "Make admin",
                          danger: false,
                        })
                      }
                    >
                      Make admin
                    </Button>
                  ) : (
                    u.id !== me.id && (
                      <Button
                        variant="secondary"
                        onClick={() =>
                          act(u, "remove-admin", {
                            title: "Remove administrator",
                            message: `Remove administrator role from ${u.email}?`,
                            confirmLabel: "Remove admin",
                          })
                        }
                      >
                        Remove admin
                      </Button>
                    )
                  )}
                  {u.twoFactorEnabled && (
                    <Button
                      variant="secondary"
                      onClick={() =>
                        act(u, "reset-2fa", {
                          title: "Reset 2FA",
                          message: `Turn off two-factor authentication for ${u.email}?`,
                          confirmLabel: "Reset 2FA",
                        })
                      }
                    >
                      Reset 2FA
                    </Button>
                  )}
                  {!u.emailVerified && !u.disabled && (
                    <Button
                      variant="secondary"
                      onClick={() =>
                        act(u, "verify-email", {
                          title: "Mark verified",
                          message: `Mark ${u.email} as verified? Only do this if you know the address is theirs.`,
                          confirmLabel: "Mark verified",
                          danger: false,
                        })
                      }
                    >
                      Mark verified
                    </Button>
                  )}
                  {!u.disabled && u.authProvider === "password" && (
                    <Button variant="secondary" onClick={() => void sendReset(u)}>
                      Send reset link
                    </Button>
                  )}
                </td>
              </tr>
            ))}
          </Table>
          {list.data?.data.length === 0 && <p className="py-4 text-center text-slate-500">No users found.</p>}
          {list.data && <Pagination page={page} total={list.data.total} pageSize={PAGE_SIZE} onPage={setPage} />}
        </>
      )}
      {dialog}
      <Modal open={!!resetLink} onClose={() => setResetLink(null)} title="Password reset link">
        {resetLink && (
          <div className="space-y-3">
            <p className="text-sm text-slate-600">{resetLink.message}</p>
            <Input
              readOnly
              aria-label={`Reset link for ${resetLink.email}`}
              value={resetLink.link}
              onFocus={(e) => e.currentTarget.select()}
            />
            <div className="flex justify-end gap-2">
              <Button variant="secondary" onClick={() => setResetLink(null)}>
                Close
              </Button>
              <Button
                onClick={() =>
                  void copyText(resetLink.link, "The reset link is on your clipboard.", "Please copy the link manually")
                }
              >
                Copy link
              </Button>
            </div>
          </div>
        )}
      </Modal>
    </div>
  );
}
