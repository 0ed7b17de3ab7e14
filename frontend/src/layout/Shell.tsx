/** The frame of every page: top navigation with who is signed in, side navigation, breadcrumbs, notifications. */
import AppLayout from "@cloudscape-design/components/app-layout";
import BreadcrumbGroup, { type BreadcrumbGroupProps } from "@cloudscape-design/components/breadcrumb-group";
import Flashbar from "@cloudscape-design/components/flashbar";
import SideNavigation, { type SideNavigationProps } from "@cloudscape-design/components/side-navigation";
import TopNavigation from "@cloudscape-design/components/top-navigation";
import { Suspense, useEffect, type ReactNode } from "react";
import { useLocation, useNavigate } from "react-router-dom";
import Spinner from "@cloudscape-design/components/spinner";
import { useApp } from "../app-context";
import { signOut } from "../auth/session";

export const NAVIGATION: SideNavigationProps.Item[] = [
  { type: "link", text: "Clusters", href: "/clusters" },
  { type: "link", text: "Operations", href: "/operations" },
  { type: "link", text: "Training plans", href: "/training-plans" },
  { type: "link", text: "Audit trail", href: "/audit" },
];

const SECTION_LABELS: Record<string, string> = { clusters: "Clusters", operations: "Operations", audit: "Audit trail", "training-plans": "Training plans" };
const PAGE_LABELS: Record<string, string> = { create: "Create cluster", import: "Import cluster" };
const CLUSTER_PAGE_LABELS: Record<string, string> = {
  jobs: "Training jobs",
  inference: "Inference",
  monitoring: "Monitoring",
  spaces: "Dev spaces",
};
const CLUSTER_PAGE_PART_LABELS: Record<string, string> = { deployments: "Model servers" };
/** The labels of a path's parts by position: section, page, a cluster's page, a part of that page. */
const LABELS = [SECTION_LABELS, PAGE_LABELS, CLUSTER_PAGE_LABELS, CLUSTER_PAGE_PART_LABELS];

/** The cluster a path is inside (`/clusters/{tag}/…`), if any. */
function clusterOf(pathname: string): string | undefined {
  const [section, tag] = pathname.split("/").filter(Boolean);
  return section === "clusters" && tag && !(tag in PAGE_LABELS) ? tag : undefined;
}

/** The side navigation: the sections, and inside a cluster its own pages (overview, training jobs, inference, monitoring, dev spaces). */
export function navigationFor(pathname: string): { items: SideNavigationProps.Item[]; activeHref: string } {
  const tag = clusterOf(pathname);
  if (!tag) return { items: NAVIGATION, activeHref: `/${pathname.split("/")[1] ?? ""}` };
  const cluster = `/clusters/${tag}`;
  const items: SideNavigationProps.Item[] = [
    ...NAVIGATION,
    { type: "divider" },
    {
      type: "section",
      text: `Cluster ${decodeURIComponent(tag)}`,
      items: [
        { type: "link", text: "Overview", href: cluster },
        { type: "link", text: "Training jobs", href: `${cluster}/jobs` },
        { type: "link", text: "Inference", href: `${cluster}/inference` },
        { type: "link", text: "Monitoring", href: `${cluster}/monitoring` },
        { type: "link", text: "Dev spaces", href: `${cluster}/spaces` },
      ],
    },
  ];
  const page = [`${cluster}/jobs`, `${cluster}/inference`, `${cluster}/monitoring`, `${cluster}/spaces`].find((href) => pathname.startsWith(href));
  return { items, activeHref: page ?? cluster };
}

/** Breadcrumbs from the URL: every view is a permalink, so the path says where the person is. */
export function breadcrumbsFor(pathname: string): BreadcrumbGroupProps.Item[] {
  const parts = pathname.split("/").filter(Boolean).map(decodeURIComponent);
  const items: BreadcrumbGroupProps.Item[] = [{ text: "InstantStart", href: "/" }];
  let href = "";
  parts.forEach((part, index) => {
    href += `/${encodeURIComponent(part)}`;
    const text = LABELS[index]?.[part] ?? part;
    items.push({ text, href });
  });
  return items;
}

const FLASHBAR_LABELS = {
  ariaLabel: "Notifications",
  notificationBarText: "Notifications",
  notificationBarAriaLabel: "View all notifications",
  errorIconAriaLabel: "Error",
  warningIconAriaLabel: "Warning",
  successIconAriaLabel: "Success",
  infoIconAriaLabel: "Information",
  inProgressIconAriaLabel: "In progress",
};

export function Shell({ children }: { children: ReactNode }) {
  const { config, identity, flashes, showPage } = useApp();
  const location = useLocation();
  useEffect(() => showPage(location.pathname), [showPage, location.pathname]);
  const navigate = useNavigate();
  const navigation = navigationFor(location.pathname);
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
        ariaLabels={{ navigation: "Side navigation", navigationToggle: "Open side navigation", navigationClose: "Close side navigation", notifications: "Notifications" }}
        navigation={<SideNavigation activeHref={navigation.activeHref} items={navigation.items} onFollow={follow} />}
        breadcrumbs={<BreadcrumbGroup items={breadcrumbsFor(location.pathname)} onFollow={follow} ariaLabel="Breadcrumbs" expandAriaLabel="Show path" />}
        notifications={<Flashbar items={flashes} stackItems i18nStrings={FLASHBAR_LABELS} />}
        content={<Suspense fallback={<Spinner size="large" />}>{children}</Suspense>}
      />
    </>
  );
}
