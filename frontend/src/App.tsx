/** The console's routes; every page is its own chunk (route-level code splitting), and every view is a URL. */
import { lazy } from "react";
import { Navigate, Route, Routes } from "react-router-dom";
import { Shell } from "./layout/Shell";

const ClustersPage = lazy(() => import("./pages/ClustersPage"));
const CreateClusterPage = lazy(() => import("./pages/create/CreateClusterPage"));
const ImportClusterPage = lazy(() => import("./pages/import/ImportClusterPage"));
const ClusterDetailPage = lazy(() => import("./pages/ClusterDetailPage"));
const NotFoundPage = lazy(() => import("./pages/NotFoundPage"));

export function App() {
  return (
    <Shell>
      <Routes>
        <Route path="/" element={<Navigate to="/clusters" replace />} />
        <Route path="/clusters" element={<ClustersPage />} />
        <Route path="/clusters/create" element={<CreateClusterPage />} />
        <Route path="/clusters/import" element={<ImportClusterPage />} />
        <Route path="/clusters/:clusterTag" element={<ClusterDetailPage />} />
        <Route path="*" element={<NotFoundPage />} />
      </Routes>
    </Shell>
  );
}
