/** The console's routes; every page is its own chunk (route-level code splitting), and every view is a URL. */
import { lazy } from "react";
import { Navigate, Route, Routes } from "react-router-dom";
import { Shell } from "./layout/Shell";

const ClustersPage = lazy(() => import("./pages/ClustersPage"));
const NotFoundPage = lazy(() => import("./pages/NotFoundPage"));

export function App() {
  return (
    <Shell>
      <Routes>
        <Route path="/" element={<Navigate to="/clusters" replace />} />
        <Route path="/clusters" element={<ClustersPage />} />
        <Route path="*" element={<NotFoundPage />} />
      </Routes>
    </Shell>
  );
}
