/** The roles as the dashboard's selects offer them (lib/access/roles.ts says what each may do). */
export const ROLE_OPTIONS = [
  { value: "owner", label: "Owner" },
  { value: "admin", label: "Admin" },
  { value: "viewer", label: "Viewer" },
] as const;
