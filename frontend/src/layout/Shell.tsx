/** The frame of every page: top navigation with who is signed in, side navigation, breadcrumbs, notifications. */
import AppLayout from "@cloudscape-design/components/app-layout";
import BreadcrumbGroup, { type BreadcrumbGroupProps } from "@cloudscape-design/components/breadcrumb-group";
import Flashbar from "@cloudscape-design/components/flashbar";
import SideNavigation, { type SideNavigationProps } from "@cloudscape-design/components/side-navigation";
import TopNavigation from "@cloudscape-design/components/top-navigation";
import { Suspense, type ReactNode } from "react";
import { useLocation, useNavigate } from "react-router-dom";
import Spinner from "@cloudscape-design/components/spinner";
import { useApp } from "../app-context";
import { signOut } from "../auth/session";

export const NAVIGATION: SideNavigationProps.Item[] = [
  { type: "link", text: "Clusters", href: "/clusters" },
  { type: "link", text: "Operations", href: "/operations" },
  { type: "link", text: "Audit trail", href: "/audit" },
];

const SECTION_LABELS: Record<string, string> = { clusters: "Clusters", operations: "Operations", audit: "Audit trail" };
const PAGE_LABELS: Record<string, string> = { create: "Create cluster", import: "Import cluster" };

/** Breadcrumbs from the URL: every view is a permalink, so the path says where the person is. */
export function breadcrumbsFor(pathname: string): BreadcrumbGroupProps.Item[] {
  const parts = pathname.split("/").filter(Boolean).map(decodeURIComponent);
  const items: BreadcrumbGroupProps.Item[] = [{ text: "InstantStart", href: "/" }];
  let href = "";
  parts.forEach((part, index) => {
    href += `/${encodeURIComponent(part)}`;
    const text = index === 0 ? (SECTION_LABELS[part] ?? part) : (PAGE_LABELS[part] ?? part);
    items.push({ text, href });
  });
  return items;
}

export function Shell({ children }: { children: ReactNode }) {
  const { config, identity, flashes } = useApp();
  const location = useLocation();
  const navigate = useNavigate();
  const follow = (event: CustomEvent<{ href: string; external?: boolean }>) => {
    if (!event.detail.external) {
      event.preventDefault();
      navigate(event.detail.href);
    }
  };
  return (
    <>
      <div id="top-nav" style={{ position: "sticky", top: 0, zIndex: 1002 }}>
        <TopNavigation
          identity={{
            href: "/",
            title: "InstantStart",
            onFollow: (event) => {
              event.preventDefault();
              navigate("/");
            },
          }}
          utilities={[
            {
              type: "menu-dropdown",
              text: `Role: ${identity.role}`,
              iconName: "user-profile",
              items: [{ id: "sign-out", text: "Sign out" }],
              onItemClick: () => signOut(config),
            },
          ]}
        />
      </div>
      <AppLayout
        headerSelector="#top-nav"
        toolsHide
        navigation={<SideNavigation activeHref={`/${location.pathname.split("/")[1] ?? ""}`} items={NAVIGATION} onFollow={follow} />}
        breadcrumbs={<BreadcrumbGroup items={breadcrumbsFor(location.pathname)} onFollow={follow} />}
        notifications={<Flashbar items={flashes} stackItems />}
        content={<Suspense fallback={<Spinner size="large" />}>{children}</Suspense>}
      />
    </>
  );
}
